package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.TestCorpus;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Hugging Face checkpoint served as the prediction stage serves a version: packed into its
 * artifact, loaded by the same loader as the small model, prompted as plain text (the fixtures have
 * no chat template) or through a ChatML template added to a copy, and sampled.
 */
class HfServingTest {

    private static final String CHATML =
            "{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' +"
                    + " message['content'] + '<|im_end|>' + '\\n' }}{%- endfor %}{%- if"
                    + " add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

    private static final Transition TRANSITION =
            TestCorpus.transition(
                    "alfworld",
                    "e1",
                    3,
                    "put a mug in the fridge",
                    List.of(),
                    "You are in a room.",
                    "open fridge 1",
                    "You open the fridge 1.",
                    NextStateKind.TEXT);

    @Test
    void shouldRoundTripTheCheckpointFilesThroughItsArtifact() throws Exception {
        final Path dir = HfFixtures.checkpoint("qwen2-tiny");
        final HfCheckpoint checkpoint = HfCheckpoint.fromDirectory(dir, 0);
        final byte[] bytes = checkpoint.toBytes();
        assertThat(ModelFormat.of(bytes)).isEqualTo(ModelFormat.HF);
        assertThat(bytes).isEqualTo(HfCheckpoint.fromDirectory(dir, 0).toBytes());
        final HfCheckpoint back = HfCheckpoint.fromBytes(bytes);
        assertThat(back.files().keySet())
                .containsExactly(
                        "config.json",
                        "generation_config.json",
                        "model.safetensors",
                        "tokenizer.json",
                        "tokenizer_config.json");
        assertThat(back.files().get("model.safetensors"))
                .isEqualTo(Files.readAllBytes(dir.resolve("model.safetensors")));
    }

    @Test
    void shouldServeABaseCheckpointWithThePlainPrompt() throws Exception {
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel model =
                        loader.fromHf(
                                0,
                                HfCheckpoint.fromDirectory(
                                        HfFixtures.checkpoint("qwen2-tiny"), 0))) {
            assertThat(model.maxContext()).isEqualTo(128);
            final Prompt prompt = model.prompt(TRANSITION, 1000);
            assertThat(prompt.text())
                    .isEqualTo(PromptFormat.standard().text(PromptView.of(TRANSITION)));
            assertThat(model.decode(prompt.tokenIds())).isEqualTo(prompt.text());
            final int[] ids = java.util.Arrays.copyOfRange(prompt.tokenIds(), 0, 40);
            final List<List<Sample>> groups =
                    model.sample(List.of(ids), new SamplingSettings(3, 1f, 1f, 6), 7L);
            assertThat(groups).hasSize(1);
            assertThat(groups.get(0)).hasSize(3);
            for (final Sample s : groups.get(0)) {
                assertThat(s.tokenIds()).hasSizeBetween(1, 6);
                assertThat(s.logProbs()).hasSize(s.tokenIds().length);
            }
            // same seed, same samples
            assertThat(
                            model.sample(List.of(ids), new SamplingSettings(3, 1f, 1f, 6), 7L)
                                    .get(0)
                                    .get(1)
                                    .tokenIds())
                    .isEqualTo(groups.get(0).get(1).tokenIds());
        }
    }

    @Test
    void shouldRenderTheActingPromptThroughTheChatTemplateWithItsAnswerShape(
            @TempDir final Path tmp) throws Exception {
        final Path dir = withChatTemplate(HfFixtures.checkpoint("qwen2-tiny"), tmp);
        final ActingView view =
                new ActingView(
                        "alfworld",
                        "put a mug in the fridge",
                        List.of(),
                        "You arrive at sink 1.",
                        List.of("go to fridge 1", "take mug 1 from sink 1"));
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel model = loader.fromHf(0, HfCheckpoint.fromDirectory(dir, 0))) {
            final String text = model.actingPrompt(view, 100_000).text();
            assertThat(text)
                    .startsWith("<|im_start|>system\nYou are an expert agent")
                    .contains(
                            PromptFormat.ACTION_FORMAT
                                    + "<|im_end|>\n<|im_start|>user\nTask:"
                                    + " put a mug in the fridge\n")
                    .contains("Admissible actions: go to fridge 1, take mug 1 from sink 1\n")
                    .doesNotContain("Potential action")
                    .endsWith("<|im_start|>assistant\n");
        }
    }

    @Test
    void shouldRenderThePapersPromptThroughTheChatTemplate(@TempDir final Path tmp)
            throws Exception {
        final Path dir = withChatTemplate(HfFixtures.checkpoint("qwen2-tiny"), tmp);
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel model = loader.fromHf(0, HfCheckpoint.fromDirectory(dir, 0))) {
            final String text = model.prompt(TRANSITION, 100_000).text();
            assertThat(text)
                    .startsWith(
                            "<|im_start|>system\nYou are an expert agent in the ALFRED embodied"
                                    + " household environment.")
                    .contains(
                            PromptFormat.ANSWER_FORMAT
                                    + "<|im_end|>\n<|im_start|>user\nTask:"
                                    + " put a mug in the fridge\n")
                    .contains("Potential action: open fridge 1\n<|im_end|>\n")
                    .endsWith("<|im_start|>assistant\n");
            // the template's special tokens are single ids of the checkpoint's tokenizer
            assertThat(model.prompt(TRANSITION, 100_000).tokenIds()[0]).isEqualTo(382);
        }
    }

    @Test
    void shouldStopWhenTheTextClosesTheNextStateOverSeveralTokens() {
        final Path dir = HfFixtures.checkpoint("qwen2-tiny");
        try (HfTokenizer tokenizer = HfTokenizer.load(dir, HfConfig.load(dir))) {
            final int[] closed = tokenizer.encode("<think></think><next_state>a mug</next_state>");
            assertThat(tokenizer.encode("</next_state>").length).isGreaterThan(1);
            for (int n = 1; n < closed.length; n++) {
                assertThat(tokenizer.closesNextState(closed, n)).as("after %d tokens", n).isFalse();
            }
            assertThat(tokenizer.closesNextState(closed, closed.length)).isTrue();
            assertThat(tokenizer.isEnd(381)).isTrue();
            assertThat(tokenizer.padId()).isEqualTo(381);
        }
    }

    /** A copy of a checkpoint directory whose tokenizer_config.json has a ChatML template. */
    static Path withChatTemplate(final Path fixture, final Path tmp) throws Exception {
        final Path dir = Files.createDirectories(tmp.resolve(fixture.getFileName()));
        try (var files = Files.list(fixture)) {
            for (final Path p : (Iterable<Path>) files::iterator) {
                Files.copy(p, dir.resolve(p.getFileName()));
            }
        }
        final ObjectMapper json = new ObjectMapper();
        final ObjectNode config =
                (ObjectNode) json.readTree(dir.resolve(ChatTemplate.FILE).toFile());
        config.put("chat_template", CHATML);
        json.writeValue(dir.resolve(ChatTemplate.FILE).toFile(), config);
        return dir;
    }
}
