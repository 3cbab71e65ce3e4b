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
     * The next action. {@code history} holds all the episode's earlier turns, oldest first (the
     * action and the observation it was taken on), more than the H turns each transition carries;
     * {@code rng} is the episode's own generator, so scripted episodes replay exactly.
     */
    Choice act(Environment env, List<Turn> history, RandomGenerator rng);

    /**
     * What an agent chose at one step.
     *
     * @param action the action the environment is given
     * @param modelVersion the model version that chose it, empty for a scripted agent
     * @param problem why the step is invalid before the environment saw it (a model's answer that
     *     holds no action: the environment is then given the answer as written), empty otherwise
     * @param sampled what the model was given and sampled, empty for a scripted agent and for a
     *     prompt that did not fit
     */
    record Choice(
            String action,
            OptionalLong modelVersion,
            Optional<String> problem,
            Optional<Sampled> sampled) {
        public Choice {
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(modelVersion, "modelVersion");
            Objects.requireNonNull(problem, "problem");
            Objects.requireNonNull(sampled, "sampled");
        }

        /** A scripted agent's action. */
        public static Choice scripted(final String action) {
            return new Choice(action, OptionalLong.empty(), Optional.empty(), Optional.empty());
        }

        /** An action a model version chose by sampling {@code sampled}. */
        public static Choice byModel(
                final String action, final long version, final Sampled sampled) {
            return new Choice(
                    action, OptionalLong.of(version), Optional.empty(), Optional.of(sampled));
        }

        /**
         * A model's answer that holds no action, and why: an invalid step. {@code sampled} is empty
         * when nothing was sampled (the prompt did not fit).
         */
        public static Choice invalid(
                final String answer,
                final long version,
                final String why,
                final Optional<Sampled> sampled) {
            return new Choice(answer, OptionalLong.of(version), Optional.of(why), sampled);
        }
    }

    /**
     * What a model was given and sampled at one step: the token ids a policy-gradient update needs.
     *
     * @param promptTokenIds the acting prompt
     * @param answerTokenIds the sampled answer, its stop token included
     * @param logProbs per answer token, the behaviour log-probability at temperature 1
     */
    record Sampled(int[] promptTokenIds, int[] answerTokenIds, float[] logProbs) {
        public Sampled {
            Objects.requireNonNull(promptTokenIds, "promptTokenIds");
            Objects.requireNonNull(answerTokenIds, "answerTokenIds");
            Objects.requireNonNull(logProbs, "logProbs");
            if (answerTokenIds.length != logProbs.length) {
                throw new IllegalArgumentException(
                        answerTokenIds.length
                                + " answer tokens but "
                                + logProbs.length
                                + " log-probabilities");
            }
        }
    }
}
