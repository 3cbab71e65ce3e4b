package dev.rwml.env;

import dev.rwml.events.Turn;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.random.RandomGenerator;

/** A policy that chooses the next action of an episode: scripted, or a model that acts. */
public interface Agent {

    /** The policy name recorded on every transition, e.g. {@code expert} or {@code model}. */
    String name();

    /**
     * The next action. {@code history} holds the episode's earlier turns, oldest first (the action
     * and the observation it was taken on); {@code rng} is the episode's own generator, so scripted
     * episodes replay exactly.
     */
    Choice act(Environment env, List<Turn> history, RandomGenerator rng);

    /**
     * What an agent chose at one step.
     *
     * @param action the action the environment is given
     * @param modelVersion the model version that chose it, empty for a scripted agent
     * @param problem why the step is invalid before the environment saw it (a model's answer that
     *     holds no action: the environment is then given the answer as written), empty otherwise
     */
    record Choice(String action, OptionalLong modelVersion, Optional<String> problem) {
        public Choice {
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(modelVersion, "modelVersion");
            Objects.requireNonNull(problem, "problem");
        }

        /** A scripted agent's action. */
        public static Choice scripted(final String action) {
            return new Choice(action, OptionalLong.empty(), Optional.empty());
        }

        /** An action a model version chose. */
        public static Choice byModel(final String action, final long version) {
            return new Choice(action, OptionalLong.of(version), Optional.empty());
        }

        /** A model's answer that holds no action, and why: an invalid step. */
        public static Choice invalid(final String answer, final long version, final String why) {
            return new Choice(answer, OptionalLong.of(version), Optional.of(why));
        }
    }
}
