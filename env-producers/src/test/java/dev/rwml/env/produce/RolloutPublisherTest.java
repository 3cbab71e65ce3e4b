package dev.rwml.env.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.env.Agent;
import dev.rwml.env.Environment;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import dev.rwml.events.EnvRef;
import dev.rwml.events.Rollout;
import dev.rwml.events.RolloutStep;
import dev.rwml.events.Sampling;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class RolloutPublisherTest {

    private static final EnvironmentSource SOURCE =
            AlfworldGames.source(Split.VALID_UNSEEN, Grammar.CURRENT);
    private static final RolloutPublisher.Command COMMAND =
            new RolloutPublisher.Command(
                    "r1",
                    new EnvRef(SOURCE.name(), SOURCE.version(), SOURCE.split()),
                    7,
                    new Sampling(1.0f, 1.0f, 24, 1));

    /**
     * Acts like a model: the expert's action at every step but the second, whose answer holds no
     * action; step i's prompt is {i}, its answer tokens {10 + i, 11 + i} with log-probs -i, -1.
     */
    private static Agent model() {
        final int[] steps = {0};
        return scripted(
                (env, rng) -> {
                    final int i = steps[0]++;
                    final Agent.Sampled sampled =
                            new Agent.Sampled(
                                    new int[] {i},
                                    new int[] {10 + i, 11 + i},
                                    new float[] {-i, -1f});
                    return i == 1
                            ? Agent.Choice.invalid("<think>", 3, "no action", Optional.of(sampled))
                            : Agent.Choice.byModel(
                                    env.expertAction().orElseThrow(), 3 + i, sampled);
                });
    }

    @Test
    void shouldRecordEachStepsTokensLogProbsAndOutcomeBesideItsTransition() {
        final String episodeId = EpisodeRunner.episodeId(SOURCE.split(), 7, 2, "r1");
        final EpisodeRunner.Episode episode =
                EpisodeRunner.withClock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC))
                        .run(SOURCE, model(), "agent-0", episodeId, 7, 2, 2);
        final List<Transition> transitions = episode.transitions();

        final Rollout rollout =
                RolloutPublisher.rollouts(
                                COMMAND, List.of(new EpisodeSink.Played(2, 2, episodeId, episode)))
                        .get(0);

        assertThat(rollout.getRolloutId()).isEqualTo("alfworld/valid_unseen-7-2@r1");
        assertThat(rollout.getGroupId()).isEqualTo("alfworld/valid_unseen-7-game2@r1");
        assertThat(rollout.getGroupSize()).isEqualTo(1);
        assertThat(rollout.getAdvantage()).as("a group of one carries no signal").isZero();
        assertThat(rollout.getEpisodeId()).isEqualTo(episodeId);
        assertThat(rollout.getRun()).isEqualTo("r1");
        assertThat(rollout.getSeed()).isEqualTo(7);
        assertThat(rollout.getEpisode()).isEqualTo(2);
        assertThat(rollout.getSampling().getGroupSize()).isEqualTo(1);
        assertThat(rollout.getTask()).isEqualTo(transitions.get(0).getTask());
        assertThat(rollout.getSteps()).hasSameSizeAs(transitions);
        for (int i = 0; i < transitions.size(); i++) {
            final RolloutStep step = rollout.getSteps().get(i);
            final Transition t = transitions.get(i);
            assertThat(step.getTransitionId()).isEqualTo(t.getTransitionId());
            assertThat(step.getModelVersion()).isEqualTo(i == 1 ? 3 : 3 + i);
            assertThat(step.getPromptTokenIds()).containsExactly(i);
            assertThat(step.getAnswerTokenIds()).containsExactly(10 + i, 11 + i);
            assertThat(step.getLogProbs()).containsExactly((float) -i, -1f);
            assertThat(step.getAction()).isEqualTo(t.getAction());
            assertThat(step.getActionValid()).isEqualTo(t.getActionValid());
        }
        assertThat(rollout.getSteps().get(1).getInvalidAnswer()).isEqualTo("no action");
        assertThat(rollout.getSteps().get(0).getInvalidAnswer()).isNull();
        // The expert finishes the game despite one unreadable answer.
        assertThat(rollout.getSuccess()).isTrue();
        assertThat(rollout.getDone()).isTrue();
        assertThat(rollout.getEpisodeReturn())
                .isEqualTo(transitions.stream().mapToDouble(Transition::getEnvReward).sum())
                .isPositive();
        assertThat(rollout.getInvalidActions())
                .isEqualTo((int) transitions.stream().filter(t -> !t.getActionValid()).count())
                .isGreaterThanOrEqualTo(1);
        assertThat(rollout.getEventTime())
                .isEqualTo(transitions.get(transitions.size() - 1).getEventTime());
    }

    @Test
    void shouldKeepAStepWithoutASampleWhenThePromptDidNotFit() {
        final Agent tooLong =
                scripted(
                        (env, rng) ->
                                Agent.Choice.invalid(
                                        "", 0, "the prompt does not fit", Optional.empty()));
        final EpisodeRunner.Episode episode =
                new EpisodeRunner(2, 3, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC))
                        .run(SOURCE, tooLong, "agent-0", "e", 7, 0, 0);

        final Rollout rollout =
                RolloutPublisher.rollouts(
                                COMMAND, List.of(new EpisodeSink.Played(0, 0, "e", episode)))
                        .get(0);

        assertThat(rollout.getSteps())
                .hasSize(3)
                .allSatisfy(
                        s -> {
                            assertThat(s.getPromptTokenIds()).isEmpty();
                            assertThat(s.getAnswerTokenIds()).isEmpty();
                            assertThat(s.getLogProbs()).isEmpty();
                            assertThat(s.getActionValid()).isFalse();
                        });
        assertThat(rollout.getSuccess()).isFalse();
        assertThat(rollout.getDone()).as("stopped at the safety limit").isFalse();
        assertThat(rollout.getInvalidActions()).isEqualTo(3);
    }

    @Test
    void shouldGiveEachEpisodeOfAGameItsStandardisedReturnAsAFloat64ReferenceDoes() {
        // Four episodes of game 3: the expert finishes (return 1), the random agent does not (0).
        final Agent[] agents = {expert(), random(), expert(), random()};
        final List<EpisodeSink.Played> game = new ArrayList<>();
        for (int k = 0; k < agents.length; k++) {
            final int n = 12 + k;
            final String id = EpisodeRunner.episodeId(SOURCE.split(), 7, n, "r1");
            game.add(
                    new EpisodeSink.Played(
                            n,
                            3,
                            id,
                            new EpisodeRunner(2, 30, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC))
                                    .run(SOURCE, agents[k], "agent-0", id, 7, 3, n)));
        }

        final List<Rollout> group = RolloutPublisher.rollouts(COMMAND, game);

        final double[] returns = group.stream().mapToDouble(Rollout::getEpisodeReturn).toArray();
        assertThat(returns[0]).isPositive();
        assertThat(returns[1]).isZero();
        // The reference: mean and population standard deviation in two plain passes.
        final double mean = (returns[0] + returns[1] + returns[2] + returns[3]) / 4;
        double squares = 0;
        for (final double r : returns) {
            squares += (r - mean) * (r - mean);
        }
        final double std = Math.sqrt(squares / 4);
        for (int k = 0; k < 4; k++) {
            final Rollout r = group.get(k);
            assertThat(r.getAdvantage())
                    .isCloseTo((returns[k] - mean) / (std + 1e-6), within(1e-12));
            assertThat(r.getGroupId()).isEqualTo("alfworld/valid_unseen-7-game3@r1");
            assertThat(r.getGame()).isEqualTo(3);
            assertThat(r.getGroupSize()).isEqualTo(4);
            assertThat(r.getEpisode()).isEqualTo(12 + k);
            assertThat(r.getTask()).as("one game, one task").isEqualTo(group.get(0).getTask());
        }
        assertThat(group.stream().mapToDouble(Rollout::getAdvantage).sum())
                .isCloseTo(0, within(1e-9));
        assertThat(game.get(0).episode().transitions().get(0).getObservation())
                .as("the same game")
                .isEqualTo(game.get(1).episode().transitions().get(0).getObservation());
    }

    private static Agent expert() {
        return scripted(
                (env, rng) -> Agent.Choice.byModel(env.expertAction().orElseThrow(), 1, SAMPLED));
    }

    private static Agent random() {
        return scripted(
                (env, rng) ->
                        Agent.Choice.byModel(
                                env.admissibleActions()
                                        .get(rng.nextInt(env.admissibleActions().size())),
                                1,
                                SAMPLED));
    }

    private static final Agent.Sampled SAMPLED =
            new Agent.Sampled(new int[] {1}, new int[] {2}, new float[] {-0.1f});

    private static Agent scripted(
            final BiFunction<Environment, RandomGenerator, Agent.Choice> act) {
        return new Agent() {
            @Override
            public String name() {
                return "model";
            }

            @Override
            public Choice act(
                    final Environment env, final List<Turn> history, final RandomGenerator rng) {
                return act.apply(env, rng);
            }
        };
    }
}
