package dev.rwml.env.recorded;

import dev.rwml.env.Agent;
import dev.rwml.env.Agent.Choice;
import dev.rwml.env.Environment;
import dev.rwml.events.Turn;
import java.util.List;
import java.util.random.RandomGenerator;

/** Takes the recorded action of a {@link ReplayEnvironment}, under the recorded policy's name. */
record ReplayAgent(String name) implements Agent {

    @Override
    public Choice act(final Environment env, final List<Turn> history, final RandomGenerator rng) {
        return Choice.scripted(
                env.expertAction()
                        .orElseThrow(
                                () -> new IllegalStateException("the recording has no step left")));
    }
}
