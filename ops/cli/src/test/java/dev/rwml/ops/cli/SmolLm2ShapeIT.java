package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.readCommitted;
import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.hf.ChatTemplate;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.LoraAdapter;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.hf.PrefixLogits;
import dev.rwml.worldmodel.hf.RandomCheckpoints;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import dev.rwml.worldmodel.tokenizer.SpecialTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A checkpoint at a real model's size through the commands a user runs, each its own process:
 * random weights at SmolLM2-135M's dimensions (134.5 M parameters, 30 layers, a 49,152-token
 * vocabulary, BF16 on disk) go through {@code model init --from-hf --lora}, the prediction, reward
 * and trainer stages to LoRA version 1, which the prediction stage loads over the base, and {@code
 * models export --hf} writes version 1 back as a checkpoint whose logits are the adapted model's.
 *
 * <p>Random weights at this size never write {@code <next_state>...</next_state>} (teaching them
 * takes minutes of SFT on two cores), so every reward is 0, every group has GRPO advantage 0 and
 * the RWML trainer would skip them all. The trainer runs the WM-SFT objective here instead, which
 * learns from the observed next state whatever the reward: the same LoRA trainer, version and
 * serving path. GRPO through LoRA runs on the tiny checkpoint in {@link HfModelPipelineIT}.
 */
@Tag("system")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SmolLm2ShapeIT {

    private static final String RUN = "smol";
    private static final Duration PIPELINE = Duration.ofMinutes(4);

    /** The ChatML template of SmolLM2's instruct checkpoints. */
    private static final String CHATML =
            "{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' +"
                    + " message['content'] + '<|im_end|>' + '\\n' }}{%- endfor %}{%- if"
                    + " add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("smollm2-shape");

    @Test
    void shouldTrainAndServeALoraVersionOfASmolLm2ShapedCheckpointAndExportIt() throws Exception {
        final long started = System.nanoTime();
        final RwmlProcesses.Cluster cluster = rwml.up("--run " + RUN);
        final var registry = EventSerdes.registryConfig(cluster.registry());
        rwml.runToEnd("env", "env run --env alfworld --agents 1 --episodes 1 --seed 3");
        final List<Transition> transitions =
                readCommitted(
                        cluster.bootstrap(),
                        TopicCatalog.TRANSITIONS,
                        TopicCatalog.defaults().transitions().valueSerde(registry).deserializer());
        assertThat(transitions).as("transitions of the env run").isNotEmpty();
        final Path checkpoint = writeCheckpoint(rwml.work().resolve("smollm2-shape"), transitions);

        final Child init =
                rwml.runToEnd(
                        "model-init",
                        "model init --run "
                                + RUN
                                + " --from-hf "
                                + checkpoint
                                + " --lora r=4,alpha=8");
        assertThat(Files.readString(init.out()))
                .contains("published version 0 of run " + RUN + ": LlamaForCausalLM");
        final Child predict =
                rwml.start(
                        "predict",
                        "predict --device cpu --run "
                                + RUN
                                + " --set group.size=2 --set sampling.max.new.tokens=8"
                                + " --set batch.size=1",
                        "--set",
                        "state.dir=" + rwml.work().resolve("prediction-state"));
        final Child reward =
                rwml.start(
                        "reward",
                        "reward --run " + RUN,
                        "--set",
                        "state.dir=" + rwml.work().resolve("reward-state"));
        final Child train =
                rwml.start(
                        "train",
                        "train --device cpu --run "
                                + RUN
                                + " --set objective=sft --set groups.per.step=1"
                                + " --set publish.every.steps=1 --set learning.rate=1e-3");
        final List<Child> stages = List.of(predict, reward, train);
        final RunTopics topics = TopicCatalog.defaults().run(RUN);
        final ModelVersion v1 =
                RwmlProcesses.awaitServedVersion(cluster, RUN, 1, predict, stages, PIPELINE);
        final long servedSeconds = (System.nanoTime() - started) / 1_000_000_000L;
        RwmlProcesses.stop(stages);
        assertThat(v1.getArtifact().getFormat()).isEqualTo(LoraCheckpoint.FORMAT);
        assertThat(v1.getModelConfig())
                .containsEntry("architecture", "LlamaForCausalLM")
                .containsEntry("lora", "r=4,alpha=8,dropout=0,targets=q+k+v+o+gate+up+down")
                // rank 4 on seven projections of 30 layers: 30 x 4 x (2 x (576 + 576)
                // + 2 x (576 + 192) + 3 x (576 + 1536))
                .containsEntry("adapterParameters", "1221120");
        assertThat(v1.getArtifact().getSizeBytes())
                .as("the adapter and its AdamW moments (3 x 4.9 MB), not the 269 MB of weights")
                .isLessThan(16L << 20);
        final List<PredictionGroup> groups =
                readCommitted(
                        cluster.bootstrap(),
                        topics.predictions().name(),
                        topics.predictions().valueSerde(registry).deserializer());
        assertThat(groups).as("prediction groups").isNotEmpty();
        assertThat(groups.get(0).getSamples()).hasSize(2);

        final Path exported = rwml.work().resolve("exported-v1");
        final Child export =
                rwml.runToEnd(
                        "export", "models export --run " + RUN + " --version 1 --hf " + exported);
        assertThat(Files.readString(export.out()))
                .contains("wrote version 1 of run " + RUN)
                .contains("its LoRA adapter merged into version 0");
        final LoraCheckpoint adapter;
        try (ModelChannel channel =
                        ModelChannel.of(
                                Connection.of(cluster.bootstrap(), cluster.registry()), RUN);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), Duration.ofSeconds(60))) {
            adapter = LoraCheckpoint.fromBytes(reader.fetch(1).bytes());
        }
        final float[] base;
        final float[] served;
        final float[] reloaded;
        final long[] ids;
        try (NDManager manager = DjlRuntime.newManager()) {
            try (HfModel model = HfModel.load(checkpoint, manager)) {
                // a transition's next state as the tokenizer splits it, up to 32 tokens
                ids =
                        Arrays.stream(
                                        model.tokenizer()
                                                .encode(transitions.get(0).getNextObservation()))
                                .limit(32)
                                .asLongStream()
                                .toArray();
                final HfDecoder decoder = model.decoder();
                base = PrefixLogits.of(decoder, manager, ids);
                try (HfDecoder adapted =
                        decoder.withAdapter(
                                LoraAdapter.fromTensors(
                                        decoder.config(),
                                        adapter.config(),
                                        adapter.weights(),
                                        manager))) {
                    served = PrefixLogits.of(adapted, manager, ids);
                }
            }
            try (HfDecoder back = HfDecoder.load(exported, manager)) {
                assertThat(back.config().architecture().className()).isEqualTo("LlamaForCausalLM");
                assertThat(back.config().parameterCount()).isEqualTo(134_515_008L);
                reloaded = PrefixLogits.of(back, manager, ids);
            }
        }
        assertThat(maxDifference(served, base))
                .as("version 1's adapter changed the model")
                .isGreaterThan(1e-3);
        assertThat(maxDifference(reloaded, served))
                .as("the exported checkpoint's logits against base + adapter")
                .isLessThan(1e-4);
        Files.writeString(
                rwml.work().resolve("figures.txt"),
                String.format(
                        Locale.ROOT,
                        "%d transitions, %d prediction groups, LoRA version 1 (%d bytes) served"
                                + " after %d s; exported logits within %.2e of base + adapter"
                                + " (adapter moved them by up to %.2e); %d s in all%n",
                        transitions.size(),
                        groups.size(),
                        v1.getArtifact().getSizeBytes(),
                        servedSeconds,
                        maxDifference(reloaded, served),
                        maxDifference(served, base),
                        (System.nanoTime() - started) / 1_000_000_000L));
    }

    /**
     * The random checkpoint with a byte-level BPE tokenizer of 4,096 ids learned from the
     * transitions' texts, ChatML's turn markers and the answer tags as single added tokens ({@code
     * <|im_end|>} is id 0, the config's end of text), and the ChatML template.
     */
    private static Path writeCheckpoint(final Path dir, final List<Transition> transitions)
            throws Exception {
        Files.createDirectories(dir);
        final List<String> texts = new ArrayList<>();
        for (final Transition t : transitions) {
            texts.add(t.getObservation());
            texts.add(t.getAction());
            texts.add(t.getNextObservation());
        }
        final Path tokenizer = dir.resolveSibling("tokenizer.json");
        Files.writeString(
                tokenizer,
                new BpeTrainer(
                                4096,
                                List.of(
                                        "<|im_end|>",
                                        "<|im_start|>",
                                        SpecialTokens.THINK_OPEN,
                                        SpecialTokens.THINK_CLOSE,
                                        SpecialTokens.NEXT_STATE_OPEN,
                                        SpecialTokens.NEXT_STATE_CLOSE))
                        .train(texts));
        RandomCheckpoints.smolLm2Shape(dir, tokenizer);
        Files.writeString(
                dir.resolve(ChatTemplate.FILE),
                new ObjectMapper().createObjectNode().put("chat_template", CHATML).toString());
        return dir;
    }

    private static double maxDifference(final float[] a, final float[] b) {
        assertThat(a).hasSameSizeAs(b);
        double max = 0;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs(a[i] - b[i]));
        }
        return max;
    }
}
