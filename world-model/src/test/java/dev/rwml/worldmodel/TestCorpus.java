package dev.rwml.worldmodel;

import dev.rwml.events.EnvRef;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Small ALFWorld- and tau2-style transitions shared by the tests. */
public final class TestCorpus {

    private static final String[] RECEPTACLES = {
        "fridge 1", "cabinet 2", "drawer 3", "countertop 1", "microwave 1", "sinkbasin 1"
    };
    private static final String[] ITEMS = {"apple 2", "mug 1", "knife 3", "bread 1", "egg 2"};

    private TestCorpus() {}

    /** {@code n} household transitions with deterministic texts. */
    public static List<Transition> alfworld(final int n) {
        final List<Transition> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final String r = RECEPTACLES[i % RECEPTACLES.length];
            final String item = ITEMS[(i / RECEPTACLES.length) % ITEMS.length];
            final String obs = "You are in the middle of a room. You see a " + r + ".";
            final String action = "go to " + r;
            final String next =
                    "You arrive at " + r + ". On the " + r + ", you see a " + item + ".";
            out.add(
                    transition(
                            "alfworld",
                            "ep" + i,
                            i,
                            "put a clean " + item + " in " + r,
                            List.of(new Turn("look", "You see nothing special.")),
                            obs,
                            action,
                            next,
                            NextStateKind.TEXT));
        }
        return out;
    }

    /** One retail transition whose action is a tool call. */
    public static Transition retailToolCall() {
        return transition(
                "retail",
                "r1",
                3,
                "Cancel order #W123 because it was ordered by mistake.",
                List.of(new Turn("Hi! How can I help?", "I want to cancel my order #W123.")),
                "user: my email is ana@example.com",
                "{\"name\":\"find_user_id_by_email\",\"arguments\":{\"email\":\"ana@example.com\"}}",
                "{\"user_id\":\"ana_42\"}",
                NextStateKind.TOOL_RESULT);
    }

    /** A transition with every field set. */
    public static Transition transition(
            final String env,
            final String episode,
            final int step,
            final String task,
            final List<Turn> history,
            final String observation,
            final String action,
            final String next,
            final NextStateKind kind) {
        return Transition.newBuilder()
                .setTransitionId(env + "/" + episode + "/" + step)
                .setEnv(new EnvRef(env, "1", "train"))
                .setEpisodeId(episode)
                .setStep(step)
                .setAgentId("agent-1")
                .setPolicy(new PolicyRef("expert", null))
                .setTask(task)
                .setHistory(history)
                .setObservation(observation)
                .setAction(action)
                .setNextObservation(next)
                .setNextKind(kind)
                .setEnvReward(0.0)
                .setDone(false)
                .setActionValid(true)
                .setAdmissibleActions(null)
                .setEventTime(java.time.Instant.ofEpochMilli(1_700_000_000_000L))
                .setMetadata(Map.of())
                .build();
    }
}
