package dev.rwml.env.recorded;

import dev.rwml.env.Agent;
import dev.rwml.env.Environment;
import java.util.random.RandomGenerator;

/** Takes the recorded action of a {@link ReplayEnvironment}, under the recorded policy's name. */
record ReplayAgent(String name) implements Agent {

    @Override
    public String act(final Environment env, final RandomGenerator rng) {
        return env.expertAction()
                .orElseThrow(() -> new IllegalStateException("the recording has no step left"));
    }
}
