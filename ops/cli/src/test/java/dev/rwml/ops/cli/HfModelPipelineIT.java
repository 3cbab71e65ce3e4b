package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.readCommitted;
import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDManager;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user's own Hugging Face checkpoint through the whole pipeline, each command its own process as
 * the README runs them: {@code model init --from-hf DIR} publishes it as version 0, the prediction,
 * reward and trainer stages produce version 1 in the same checkpoint format, and {@code models
 * export --hf} writes version 1 back as a checkpoint directory that loads. The same commands with
 * {@code --lora} run at a real model's size in {@link SmolLm2ShapeIT}.
 *
 * <p>The checkpoint is the tiny random Qwen2 of {@code shared/fixtures/hf-tiny} with a ChatML
 * template and a longer {@code max_position_embeddings} (its 128 positions do not hold the paper's
 * prompt; rotary positions have no learned table, so the weights are unchanged). A random model
 * never writes {@code </next_state>}, so every reward would be 0 and no group would carry a GRPO
 * advantage: the test first teaches it the answer format with a few SFT steps on the transitions'
 * own prompts, as a user brings a model that already answers in it.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HfModelPipelineIT {

    private static final String RUN = "hfpipe";
    private static final Duration PIPELINE = Duration.ofMinutes(3);

    /** The prediction stage's default {@code prompt.max.tokens}. */
    private static final int PROMPT_TOKENS = 512;

    /** Enough for the tiny model to close the tags in most samples at temperature 1. */
    private static final int SFT_STEPS = 80;

    private RwmlProcesses rwml;

    @BeforeEach
    void freshWorkDirectory() throws Exception {
        rwml = new RwmlProcesses("hf-model-pipeline");
    }

    @AfterEach
    void killEveryChild() {
        rwml.close();
    }

    @Test
    void shouldInitFromAHuggingFaceCheckpointAndPublishVersionOneInItsFormat() throws Exception {
        final long started = System.nanoTime();
        final RwmlProcesses.Cluster cluster = rwml.up("--run " + RUN);
        final var registry = EventSerdes.registryConfig(cluster.registry());
        rwml.runToEnd("env", "env run --env alfworld --agents 2 --episodes 3 --seed 1");
        final List<Transition> transitions =
                readCommitted(
                        cluster.bootstrap(),
                        TopicCatalog.TRANSITIONS,
                        TopicCatalog.defaults().transitions().valueSerde(registry).deserializer());
        assertThat(transitions).as("transitions of the env run").isNotEmpty();

        final Path checkpoint = rwml.work().resolve("qwen2-tiny-chat");
        prepareCheckpoint(checkpoint, transitions);

        // every weight trained: version 1 is a whole checkpoint
        final ModelVersion full = versionOne(cluster, RUN, checkpoint);
        assertThat(full.getArtifact().getFormat()).isEqualTo(HfCheckpoint.FORMAT);
        assertThat(full.getModelConfig()).containsEntry("architecture", "Qwen2ForCausalLM");
        assertThat(full.getParentVersion()).isEqualTo(0L);
        final List<PredictionGroup> groups =
                readCommitted(
                        cluster.bootstrap(),
                        TopicCatalog.defaults().run(RUN).predictions().name(),
                        TopicCatalog.defaults()
                                .run(RUN)
                                .predictions()
                                .valueSerde(registry)
                                .deserializer());
        final long parsed =
                groups.stream()
                        .flatMap(g -> g.getSamples().stream())
                        .map(PredictionSample::getPredictedNextState)
                        .filter(p -> p != null)
                        .count();
        final long fullSeconds = (System.nanoTime() - started) / 1_000_000_000L;
        assertThat(parsed).as("samples that closed </next_state>").isPositive();
        exportAndReload(RUN);
        Files.writeString(
                rwml.work().resolve("figures.txt"),
                String.format(
                        java.util.Locale.ROOT,
                        "%d prediction groups, %d of %d samples with a next state, version 1"
                                + " after %d s (%d bytes)%n",
                        groups.size(),
                        parsed,
                        groups.stream().mapToInt(g -> g.getSamples().size()).sum(),
                        fullSeconds,
                        full.getArtifact().getSizeBytes()));
    }

    /**
     * Publishes the checkpoint as version 0 of {@code run} ({@code model init --from-hf}), runs the
     * prediction, reward and trainer stages until version 1 is committed and the prediction stage
     * has loaded it, stops them and returns its manifest.
     */
    private ModelVersion versionOne(
            final RwmlProcesses.Cluster cluster, final String run, final Path checkpoint)
            throws Exception {
        final var registry = EventSerdes.registryConfig(cluster.registry());
        final Child init =
                rwml.runToEnd(
                        run + "-model-init",
                        "model init --run " + run + " --from-hf " + checkpoint);
        assertThat(Files.readString(init.out()))
                .contains("published version 0 of run " + run + ": Qwen2ForCausalLM")
                .contains(HfCheckpoint.FORMAT);
        final Child predict =
                rwml.start(
                        run + "-predict",
                        "predict --device cpu --run "
                                + run
                                + " --set group.size=4 --set sampling.max.new.tokens=160"
                                + " --set batch.size=4",
                        "--set",
                        "state.dir=" + rwml.work().resolve(run + "-prediction-state"));
        final Child reward =
                rwml.start(
                        run + "-reward",
                        "reward --run " + run + " --set reward.spec=TEXT=cosine:0.3",
                        "--set",
                        "state.dir=" + rwml.work().resolve(run + "-reward-state"));
        final Child train =
                rwml.start(
                        run + "-train",
                        "train --device cpu --run "
                                + run
                                + " --set groups.per.step=2 --set publish.every.steps=1"
                                + " --set learning.rate=1e-4");
        final List<Child> stages = List.of(predict, reward, train);
        final ModelVersion v1 =
                RwmlProcesses.awaitServedVersion(cluster, run, 1, predict, train, stages, PIPELINE);
        // --device reached the stages, which say where their model runs
        assertThat(Files.readString(predict.log()))
                .contains(
                        "Prediction stage of run "
                                + run
                                + ": PyTorch 2.7.1 on cpu() (model.device=cpu");
        assertThat(Files.readString(train.log()))
                .contains("Trainer of run " + run + ": PyTorch 2.7.1 on cpu() (model.device=cpu");
        RwmlProcesses.stop(stages);
        return v1;
    }

    /** {@code models export --hf} of version 1 writes a checkpoint directory that loads. */
    private void exportAndReload(final String run) throws Exception {
        final Path exported = rwml.work().resolve(run + "-exported-v1");
        final Child export =
                rwml.runToEnd(
                        run + "-export",
                        "models export --run " + run + " --version 1 --hf " + exported);
        assertThat(Files.readString(export.out())).contains("wrote version 1 of run " + run);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder back = HfDecoder.load(exported, manager)) {
            assertThat(back.config().architecture().className()).isEqualTo("Qwen2ForCausalLM");
            assertThat(back.maxContext()).isEqualTo(1024);
        }
    }

    /**
     * The fixture with a chat template and 1024 positions, after SFT on the answer format: {@code
     * <think></think><next_state>observed</next_state><|im_end|>} after each transition's chat
     * prompt.
     */
    private static void prepareCheckpoint(final Path dir, final List<Transition> transitions)
            throws Exception {
        HfFixtures.chatCheckpoint(dir);

        try (NDManager manager = DjlRuntime.newManager();
                HfModel model = HfModel.load(dir, manager)) {
            final List<SequenceBatch.Pair> pairs = new ArrayList<>();
            for (final Transition t : transitions) {
                // the prompts the prediction stage builds: its prompt budget, 512 tokens
                final Prompt prompt =
                        model.prompt(PromptFormat.standard(), PromptView.of(t), PROMPT_TOKENS);
                final int[] target =
                        model.tokenizer().encode(PromptFormat.target(t) + "<|im_end|>");
                pairs.add(new SequenceBatch.Pair(prompt.tokenIds(), target));
            }
            final TrainConfig sft =
                    new TrainConfig(
                            3e-3,
                            0.0,
                            0.9,
                            0.999,
                            1e-8,
                            1.0,
                            5,
                            0,
                            TrainConfig.Schedule.CONSTANT,
                            1.0);
            try (Trainer trainer =
                    new Trainer(model.decoder(), null, sft, model.tokenizer().padId())) {
                StepMetrics last = null;
                for (int step = 0; step < SFT_STEPS; step++) {
                    final List<SequenceBatch.Pair> batch = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        batch.add(pairs.get((step * 4 + i) % pairs.size()));
                    }
                    last = trainer.sftStep(batch);
                }
                Files.writeString(
                        dir.resolveSibling("sft.txt"),
                        "SFT steps " + SFT_STEPS + ", last loss " + last.loss() + "\n");
            }
            HfCheckpoint.fromDirectory(dir, 0)
                    .withWeights(0, model.decoder().toTensors(), Map.of())
                    .writeTo(dir);
        }
    }
}
