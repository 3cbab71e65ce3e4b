package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.readCommitted;
import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDManager;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user's own Hugging Face checkpoint through the whole pipeline, each command its own process as
 * docs/models-and-gpus.md runs them: {@code model init --from-hf DIR} publishes it as version 0,
 * the prediction, reward and trainer stages produce version 1 in the same checkpoint format, and
 * {@code models export --hf} writes version 1 back as a checkpoint directory that loads. The same
 * commands with {@code --lora} run at a real model's size in {@link SmolLm2ShapeIT}.
 *
 * <p>The checkpoint is the tiny random Qwen2 of the world-model test fixtures ({@code hf-tiny})
 * with a ChatML template and a longer {@code max_position_embeddings} (its 128 positions do not
 * hold the paper's prompt; rotary positions have no learned table, so the weights are unchanged). A
 * random model never writes {@code </next_state>}, so every reward would be 0 and no group would
 * carry a GRPO advantage: {@code model init --steps} first teaches it the answer format by SFT on a
 * first env run's transitions, with the prompts the prediction stage builds; the stages then work
 * on a second env run's, after that slice. The prediction stage runs with the Vector API module in
 * {@code JAVA_OPTS}, so its decode steps go through the Java kernel.
 */
@Tag("system")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HfModelPipelineIT {

    private static final String RUN = "hfpipe";
    private static final Duration PIPELINE = Duration.ofMinutes(5);

    /** Enough for the tiny model to close the tags in most samples at temperature 1. */
    private static final int SFT_STEPS = 80;

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("hf-model-pipeline");

    @Test
    void shouldInitFromAHuggingFaceCheckpointAndPublishVersionOneInItsFormat() throws Exception {
        final long started = System.nanoTime();
        final RwmlProcesses.Cluster cluster = rwml.up("--run " + RUN);
        final var registry = EventSerdes.registryConfig(cluster.registry());
        rwml.runToEnd("env", "env run --env alfworld --agents 2 --episodes 3 --seed 1");
        final Path checkpoint = HfFixtures.chatCheckpoint(rwml.work().resolve("qwen2-tiny-chat"));

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
                        "model init --run "
                                + run
                                + " --from-hf "
                                + checkpoint
                                + " --steps "
                                + SFT_STEPS
                                + " --learning-rate 3e-3");
        assertThat(Files.readString(init.out()))
                .contains("slice: ")
                .containsPattern("SFT steps .*" + SFT_STEPS + "/" + SFT_STEPS)
                .contains("published version 0 of run " + run + ": Qwen2ForCausalLM")
                .contains(HfCheckpoint.FORMAT)
                .contains("next offsets of rwml.transitions for the prediction stage");
        // the stages start after the slice (start.from=after-base): new episodes to predict.
        // Enough groups of 8 that some carry an advantage: with 3 episodes in groups of 4, one
        // run in several had none, so no version was ever trained.
        rwml.runToEnd("env-after-init", "env run --env alfworld --agents 2 --episodes 6 --seed 2");
        // decode steps through the Vector API kernel, as docs/models-and-gpus.md shows
        final Child predict =
                rwml.startWithJavaOptions(
                        "--add-modules jdk.incubator.vector",
                        run + "-predict",
                        "predict --device cpu --run "
                                + run
                                + " --set group.size=8 --set sampling.max.new.tokens=160"
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
                RwmlProcesses.awaitServedVersion(cluster, run, 1, predict, stages, PIPELINE);
        // --device reached the stages, which say where their model runs
        assertThat(Files.readString(predict.log()))
                .contains(
                        "Prediction stage of run "
                                + run
                                + ": PyTorch 2.7.1 on cpu() (model.device=cpu")
                .contains("run in Java with the Vector API kernel");
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
}
