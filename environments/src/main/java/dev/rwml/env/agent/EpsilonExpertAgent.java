package dev.rwml.env.agent;

import dev.rwml.env.Agent;
import dev.rwml.env.Agent.Choice;
import dev.rwml.env.Environment;
import dev.rwml.events.Turn;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The expert with noise: with probability {@code eps} a random admissible action, with probability
 * {@code invalidRate} an action that is not admissible ({@link Environment#inadmissibleAction}: the
 * paper's data contains such actions and their {@code Nothing happens.}), otherwise the expert's
 * action.
 *
 * @param eps probability of a random admissible action
 * @param invalidRate probability of an invalid action
 */
public record EpsilonExpertAgent(double eps, double invalidRate) implements Agent {

    public EpsilonExpertAgent {
        if (eps < 0 || invalidRate < 0 || eps + invalidRate > 1) {
            throw new IllegalArgumentException(
                    "eps and invalidRate must be >= 0 with a sum <= 1, got eps="
                            + eps
                            + ", invalidRate="
                            + invalidRate);
        }
    }

    @Override
    public String name() {
        return String.format(Locale.ROOT, "expert-eps%.2f-invalid%.2f", eps, invalidRate);
    }

    @Override
    public Choice act(final Environment env, final List<Turn> history, final RandomGenerator rng) {
        final double draw = rng.nextDouble();
        if (draw < invalidRate) {
            return Choice.scripted(env.inadmissibleAction(rng));
        }
        if (draw < invalidRate + eps || env.expertAction().isEmpty()) {
            return Choice.scripted(RandomAgent.pick(env, rng));
        }
        return Choice.scripted(ExpertAgent.next(env));
    }
}
