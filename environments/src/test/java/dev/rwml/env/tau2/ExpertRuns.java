package dev.rwml.env.tau2;

import dev.rwml.env.Environment;
import java.util.ArrayList;
import java.util.List;

/** Test helper: plays an episode with the environment's expert and records the conversation. */
public final class ExpertRuns {

    private ExpertRuns() {}

    /** What an expert episode produced. */
    public record Run(List<String> actions, List<Environment.Step> steps) {

        /** The last step. */
        public Environment.Step last() {
            return steps.get(steps.size() - 1);
        }
    }

    /** Plays the expert until the episode ends or it has no action. */
    public static Run play(final Environment env) {
        final List<String> actions = new ArrayList<>();
        final List<Environment.Step> steps = new ArrayList<>();
        while (!env.done()) {
            final String action = env.expertAction().orElseThrow();
            actions.add(action);
            steps.add(env.step(action));
        }
        return new Run(actions, steps);
    }
}
