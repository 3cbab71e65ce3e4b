package dev.rwml.schemas;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.Difficulty;
import dev.rwml.events.EnvRef;
import dev.rwml.events.GroupStats;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.RewardSpecRef;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import dev.rwml.events.Sampling;
import dev.rwml.events.TrainingCounters;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/** One realistic instance of every event type, for round-trip tests and benchmarks. */
public final class SampleEvents {
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    private SampleEvents() {}

    public static Transition transition(final int step, final int observationChars) {
        final String id = "alfworld/ep-42/" + step;
        return Transition.newBuilder()
                .setTransitionId(id)
                .setEnv(new EnvRef("alfworld", "1", "train"))
                .setEpisodeId("ep-42")
                .setStep(step)
                .setAgentId("random-1")
                .setPolicy(new PolicyRef("random-admissible", null))
                .setTask("put a clean apple in the fridge")
                .setHistory(
                        List.of(
                                new Turn(
                                        "go to countertop 1",
                                        "On the countertop 1, you see a apple 2."),
                                new Turn(
                                        "take apple 2 from countertop 1",
                                        "You pick up the apple 2.")))
                .setObservation("x".repeat(Math.max(0, observationChars)))
                .setAction("go to fridge 1")
                .setNextObservation("The fridge 1 is closed.")
                .setNextKind(NextStateKind.TEXT)
                .setEnvReward(0.0)
                .setDone(false)
                .setActionValid(true)
                .setAdmissibleActions(List.of("open fridge 1", "look", "inventory"))
                .setEventTime(NOW)
                .setMetadata(Map.of("seed", "7"))
                .build();
    }

    public static PredictionGroup predictionGroup() {
        return PredictionGroup.newBuilder()
                .setTransitionId("alfworld/ep-42/3")
                .setRun("r1")
                .setModelVersion(5)
                .setPromptTokenIds(List.of(1, 2, 3))
                .setSamples(
                        List.of(
                                new PredictionSample(
                                        "<think>t</think><next_state>closed</next_state>",
                                        "closed",
                                        List.of(4, 5),
                                        List.of(-0.5f, -1.25f)),
                                new PredictionSample("garbled", null, List.of(6), List.of(-3f))))
                .setSampling(new Sampling(1.0f, 0.95f, 128, 2))
                .setGeneratedAt(NOW)
                .build();
    }

    public static RewardedGroup rewardedGroup() {
        return RewardedGroup.newBuilder()
                .setTransitionId("alfworld/ep-42/3")
                .setRun("r1")
                .setModelVersion(5)
                .setEnv(new EnvRef("alfworld", "1", "train"))
                .setNextKind(NextStateKind.TEXT)
                .setPromptTokenIds(List.of(1, 2, 3))
                .setObservedNextState("The fridge 1 is closed.")
                .setSamples(
                        List.of(
                                new RewardedSample(
                                        "<next_state>closed</next_state>",
                                        "closed",
                                        List.of(4),
                                        List.of(-0.5f),
                                        0.91,
                                        1.0,
                                        0.7)))
                .setStats(new GroupStats(0.5, 0.5, 0.5))
                .setDifficulty(Difficulty.INFORMATIVE)
                .setKept(true)
                .setKeepReason("informative")
                .setRewardSpec(new RewardSpecRef("embedding-cosine", "all-minilm-l6-v2", 0.8))
                .setSampling(new Sampling(1.0f, 0.95f, 128, 1))
                .setGeneratedAt(NOW)
                .setRewardedAt(NOW)
                .build();
    }

    public static ModelVersion modelVersion() {
        return ModelVersion.newBuilder()
                .setRun("r1")
                .setVersion(6)
                .setParentVersion(5L)
                .setCreatedAt(NOW)
                .setCounters(new TrainingCounters(10L, 80L, 12_000L, 1L, 2L))
                .setMetrics(Map.of("meanReward", 0.4))
                .setStalenessHistogram(Map.of("0", 70L, "1", 10L))
                .setLineage(List.of(new OffsetRange("rwml.r1.rewards", 0, 100L, 180L)))
                .setArtifact(
                        ArtifactRef.newBuilder()
                                .setFormat("rwml-checkpoint-v1")
                                .setSizeBytes(1024)
                                .setSha256("ab".repeat(32))
                                .setChunkCount(1)
                                .build())
                .build();
    }

    public static ModelChunk modelChunk() {
        return new ModelChunk("r1", 6L, 0, 1, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
    }

    public static DeadLetter deadLetter() {
        return DeadLetter.newBuilder()
                .setStage("prediction-stream")
                .setErrorClass("dev.rwml.schemas.serde.EventDecodingException")
                .setErrorMessage("bad")
                .setSourceTopic("rwml.transitions")
                .setSourcePartition(1)
                .setSourceOffset(17)
                .setOriginalKey(ByteBuffer.wrap(new byte[] {'k'}))
                .setOriginalValue(ByteBuffer.wrap(new byte[] {9, 9}))
                .setOriginalHeaders(Map.of("h", ByteBuffer.wrap(new byte[] {1})))
                .setFailedAt(NOW)
                .build();
    }

    /** One instance of each event type that travels on a topic. */
    public static List<SpecificRecord> everyEventType() {
        return List.of(
                transition(3, 200),
                predictionGroup(),
                rewardedGroup(),
                modelVersion(),
                modelChunk(),
                deadLetter());
    }
}
