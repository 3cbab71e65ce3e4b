package dev.rwml.scoring;

import dev.rwml.events.EnvRef;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.Sampling;
import dev.rwml.events.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds transitions, prediction groups and observation texts for the tests of scoring and the
 * stages that score.
 */
public final class Fixtures {

    public static final String FRIDGE =
            "You open the fridge 1. The fridge 1 is open. In it, you see a apple 2.";
    public static final String FRIDGE_PARAPHRASE =
            "You open the fridge 1. It is open now. Inside you see an apple 2.";
    public static final String COUNTERTOP =
            "You arrive at countertop 1. On the countertop 1, you see a bread 1, a knife 2, and a"
                    + " mug 1.";
    public static final String NOTHING = "Nothing happens.";

    private Fixtures() {}

    public static Transition transition(final String id, final String env, final String next) {
        return Transition.newBuilder()
                .setTransitionId(id)
                .setEnv(EnvRef.newBuilder().setName(env).setVersion("1").setSplit("train").build())
                .setEpisodeId(id.split("/")[1])
                .setStep(0)
                .setAgentId("agent-1")
                .setPolicy(PolicyRef.newBuilder().setName("random").build())
                .setTask("put a clean apple in fridge.")
                .setObservation("You are in the middle of a room.")
                .setAction("open fridge 1")
                .setNextObservation(next)
                .setNextKind(NextStateKind.TEXT)
                .setEventTime(Instant.ofEpochMilli(0))
                .setMetadata(Map.of())
                .build();
    }

    /** A group whose samples predict the given states (null: no parsable next_state). */
    public static PredictionGroup group(final String id, final String... predicted) {
        final List<PredictionSample> samples = new ArrayList<>();
        for (final String state : predicted) {
            samples.add(
                    PredictionSample.newBuilder()
                            .setText("<think>t</think><next_state>" + state + "</next_state>")
                            .setPredictedNextState(state)
                            .setTokenIds(List.of(1, 2, 3))
                            .setLogprobs(List.of(-0.5f, -0.25f, -1f))
                            .build());
        }
        return PredictionGroup.newBuilder()
                .setTransitionId(id)
                .setRun("r0")
                .setModelVersion(3)
                .setPromptTokenIds(List.of(7, 8))
                .setSamples(samples)
                .setSampling(
                        Sampling.newBuilder()
                                .setTemperature(1f)
                                .setTopP(1f)
                                .setMaxNewTokens(64)
                                .setGroupSize(predicted.length)
                                .build())
                .setGeneratedAt(Instant.ofEpochMilli(5))
                .build();
    }
}
