package dev.rwml.env.agent;

import dev.rwml.env.Agent;
import dev.rwml.env.Environment;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The expert with noise: with probability {@code eps} a random admissible action, with probability
 * {@code invalidRate} an action that is not admissible (the paper's data contains such actions and
 * their {@code Nothing happens.}), otherwise the expert's action.
 *
 * @param eps probability of a random admissible action
 * @param invalidRate probability of an invalid action
 */
public record EpsilonExpertAgent(double eps, double invalidRate) implements Agent {

    // Verbs no ALFWorld or tau2 grammar accepts, so the made-up command is never admissible.
    private static final List<String> MADE_UP_VERBS =
            List.of("grab", "smash", "wash", "throw", "search", "eat", "kick", "unlock", "sit on");

    private static final RandomAgent RANDOM = new RandomAgent();
    private static final ExpertAgent EXPERT = new ExpertAgent();

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
    public String act(final Environment env, final RandomGenerator rng) {
        final double draw = rng.nextDouble();
        if (draw < invalidRate) {
            return invalidAction(env, rng);
        }
        if (draw < invalidRate + eps || env.expertAction().isEmpty()) {
            return RANDOM.act(env, rng);
        }
        return EXPERT.act(env, rng);
    }

    /** A made-up verb applied to the object of a real admissible action, e.g. "grab apple 1". */
    static String invalidAction(final Environment env, final RandomGenerator rng) {
        final List<String> admissible = env.admissibleActions();
        final String verb = MADE_UP_VERBS.get(rng.nextInt(MADE_UP_VERBS.size()));
        String object = "it";
        if (!admissible.isEmpty()) {
            final String[] words = admissible.get(rng.nextInt(admissible.size())).split(" ");
            if (words.length >= 3) {
                object = words[words.length - 2] + " " + words[words.length - 1];
            } else if (words.length == 2) {
                object = words[1];
            }
        }
        final String action = verb + " " + object;
        return admissible.contains(action) ? verb + " everything" : action;
    }
}
