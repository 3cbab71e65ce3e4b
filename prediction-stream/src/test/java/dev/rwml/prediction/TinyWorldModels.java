package dev.rwml.prediction;

import ai.djl.ndarray.NDManager;
import dev.rwml.events.EnvRef;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.TransformerLM;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Real, tiny DJL world models and household transitions for the module's tests. */
final class TinyWorldModels {

    private static final List<String> CORPUS =
            List.of(
                    "You are an expert agent in the ALFRED embodied household environment.",
                    " Predict the immediate next observation after the action.",
                    "Task: put a clean apple in the fridge.",
                    "Your current observation is: You are in the middle of a room.",
                    "Potential action: go to countertop 1",
                    "> open fridge 1\nYou open the fridge 1. The fridge 1 is open.",
                    "On the countertop 1, you see a apple 2, a knife 1, and a mug 3.",
                    "<think></think><next_state>Nothing happens.</next_state>");

    private static String tokenizerJson;

    private TinyWorldModels() {}

    /** A byte-level BPE tokenizer.json trained on a few household sentences (cached). */
    static synchronized String tokenizerJson() {
        if (tokenizerJson == null) {
            tokenizerJson = BpeTrainer.withDefaultSpecials(320).train(CORPUS);
        }
        return tokenizerJson;
    }

    /** A randomly initialised tiny model (d32, one block, context 512) as a checkpoint. */
    static Checkpoint checkpoint(final long version, final long seed) {
        return checkpoint(version, seed, new ModelConfig(vocabSize(), 32, 1, 2, 64, 512, true));
    }

    /** The size of the test tokenizer's vocabulary. */
    static int vocabSize() {
        try (WorldModelTokenizer tokenizer = WorldModelTokenizer.fromJson(tokenizerJson())) {
            return tokenizer.vocabSize();
        }
    }

    /** A randomly initialised model of the given shape as a checkpoint. */
    static Checkpoint checkpoint(final long version, final long seed, final ModelConfig config) {
        try (NDManager manager = DjlRuntime.newManager();
                TransformerLM model = TransformerLM.initialise(config, seed, manager)) {
            return new Checkpoint(version, config, tokenizerJson(), model.toTensors(), Map.of());
        }
    }

    /** A household transition with {@code history} earlier turns. */
    static Transition transition(
            final String episode, final int step, final String nextObservation, final int history) {
        final List<Turn> turns = new ArrayList<>();
        for (int i = 0; i < history; i++) {
            turns.add(
                    Turn.newBuilder()
                            .setAction("go to cabinet " + i)
                            .setObservation("On the cabinet " + i + ", you see a mug " + i + ".")
                            .build());
        }
        return Transition.newBuilder()
                .setTransitionId("alfworld/" + episode + "/" + step)
                .setEnv(EnvRef.newBuilder().setName("alfworld").setSplit("train").build())
                .setEpisodeId(episode)
                .setStep(step)
                .setAgentId("agent-1")
                .setPolicy(PolicyRef.newBuilder().setName("random").build())
                .setTask("put a clean apple in the fridge.")
                .setHistory(turns)
                .setObservation("You are in the middle of a room.")
                .setAction("go to countertop 1")
                .setNextObservation(nextObservation)
                .setNextKind(NextStateKind.TEXT)
                .setEventTime(Instant.ofEpochMilli(1_000L + step))
                .build();
    }
}
