package dev.rwml.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.agent.ExpertAgent;
import dev.rwml.env.agent.RandomAgent;
import dev.rwml.env.alfworld.AlfworldEnvironment;
import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class EpisodeRunnerTest {

    private static final Clock CLOCK =
            Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final EnvironmentSource TRAIN =
            AlfworldGames.source(Split.TRAIN, Grammar.CURRENT);

    @Test
    void shouldNameTransitionsAndEpisodesDeterministically() {
        final List<Transition> episode =
                EpisodeRunner.withClock(CLOCK).run(TRAIN, new ExpertAgent(), "agent-7", 42, 3);
        assertThat(episode).isNotEmpty();
        for (int i = 0; i < episode.size(); i++) {
            final Transition t = episode.get(i);
            assertThat(t.getEpisodeId()).isEqualTo("train-42-3");
            assertThat(t.getTransitionId()).isEqualTo("alfworld/train-42-3/" + i);
            assertThat(t.getStep()).isEqualTo(i);
            assertThat(t.getAgentId()).isEqualTo("agent-7");
            assertThat(t.getPolicy().getName()).isEqualTo("expert");
            assertThat(t.getPolicy().getModelVersion()).isNull();
            assertThat(t.getEnv().getName()).isEqualTo("alfworld");
            assertThat(t.getEnv().getVersion()).isEqualTo(AlfworldEnvironment.VERSION);
            assertThat(t.getEnv().getSplit()).isEqualTo("train");
            assertThat(t.getNextKind()).isEqualTo(NextStateKind.TEXT);
            assertThat(t.getEventTime()).isEqualTo(CLOCK.instant());
            assertThat(t.getMetadata()).containsKeys("taskType", "grammar");
            assertThat(t.getAdmissibleActions()).contains(t.getAction()).isSorted();
        }
        assertThat(episode.get(0).getObservation())
                .startsWith("-= Welcome to TextWorld, ALFRED! =-");
        assertThat(episode.get(0).getObservation())
                .endsWith("Your task is to: " + episode.get(0).getTask());
    }

    @Test
    void shouldEndWithDoneAndRewardWhenTheGoalIsReached() {
        for (long seed = 0; seed < 30; seed++) {
            final List<Transition> episode =
                    EpisodeRunner.withClock(CLOCK).run(TRAIN, new ExpertAgent(), "a", seed, 0);
            final Transition last = episode.get(episode.size() - 1);
            assertThat(last.getDone()).isTrue();
            assertThat(last.getEnvReward()).isEqualTo(1.0);
            assertThat(episode.subList(0, episode.size() - 1))
                    .allSatisfy(t -> assertThat(t.getDone()).isFalse())
                    .allSatisfy(t -> assertThat(t.getEnvReward()).isZero());
        }
    }

    @Test
    void shouldCarryAtMostHTurnsOfHistoryOldestFirst() {
        for (final int h : new int[] {0, 1, 2, 5}) {
            final List<Transition> episode =
                    new EpisodeRunner(h, EpisodeRunner.DEFAULT_MAX_STEPS, CLOCK)
                            .run(TRAIN, new RandomAgent(), "a", 5, 0);
            assertThat(episode).hasSize(AlfworldEnvironment.DEFAULT_STEP_CAP);
            for (int i = 0; i < episode.size(); i++) {
                final List<Turn> history = episode.get(i).getHistory();
                assertThat(history).hasSize(Math.min(h, i));
                for (int k = 0; k < history.size(); k++) {
                    final Transition earlier = episode.get(i - history.size() + k);
                    assertThat(history.get(k).getAction()).isEqualTo(earlier.getAction());
                    assertThat(history.get(k).getObservation()).isEqualTo(earlier.getObservation());
                }
                if (i > 0) {
                    assertThat(episode.get(i).getObservation())
                            .isEqualTo(episode.get(i - 1).getNextObservation());
                }
            }
        }
    }

    @Test
    void shouldProduceIdenticalRecordsForTheSameSeedAndDifferentOnesForAnother() {
        final EpisodeRunner runner = EpisodeRunner.withClock(CLOCK);
        final EpsilonExpertAgent agent = new EpsilonExpertAgent(0.2, 0.1);
        assertThat(runner.run(TRAIN, agent, "a", 11, 2))
                .isEqualTo(runner.run(TRAIN, agent, "a", 11, 2));
        assertThat(runner.run(TRAIN, new RandomAgent(), "a", 11, 2))
                .isEqualTo(runner.run(TRAIN, new RandomAgent(), "a", 11, 2));
        assertThat(runner.run(TRAIN, agent, "a", 11, 3).get(0).getObservation())
                .isNotEqualTo(runner.run(TRAIN, agent, "a", 11, 2).get(0).getObservation());
    }

    @Test
    void shouldRecordInvalidActionsOfTheEpsilonAgentAsNothingHappens() {
        final double invalidRate = 0.2;
        final EpsilonExpertAgent agent = new EpsilonExpertAgent(0.1, invalidRate);
        final EpisodeRunner runner = EpisodeRunner.withClock(CLOCK);
        int steps = 0;
        int invalid = 0;
        for (long seed = 0; seed < 150; seed++) {
            for (final Transition t : runner.run(TRAIN, agent, "a", seed, 0)) {
                steps++;
                if (!t.getActionValid()) {
                    invalid++;
                    assertThat(t.getNextObservation()).isEqualTo(AlfworldEnvironment.NOTHING);
                    assertThat(t.getAdmissibleActions()).doesNotContain(t.getAction());
                    assertThat(t.getEnvReward()).isZero();
                } else {
                    assertThat(t.getAdmissibleActions()).contains(t.getAction());
                }
            }
        }
        assertThat(steps).isGreaterThan(1_000);
        assertThat(invalid / (double) steps).isBetween(invalidRate - 0.04, invalidRate + 0.04);
        assertThat(agent.name()).isEqualTo("expert-eps0.10-invalid0.20");
    }

    @Test
    void shouldHandAnAgentItsHistoryAndRecordItsVersionAndAnUnreadableAnswerAsInvalid() {
        final List<List<Turn>> seen = new ArrayList<>();
        final Agent model =
                new Agent() {
                    @Override
                    public String name() {
                        return "model";
                    }

                    @Override
                    public Choice act(
                            final Environment env,
                            final List<Turn> history,
                            final RandomGenerator rng) {
                        seen.add(history);
                        final Sampled sampled =
                                new Sampled(new int[] {1, 2}, new int[] {3}, new float[] {-0.5f});
                        return seen.size() == 2
                                ? Choice.invalid(
                                        "<think>hmm",
                                        7,
                                        "the reasoning is never closed",
                                        Optional.of(sampled))
                                : Choice.byModel(env.expertAction().orElseThrow(), 7, sampled);
                    }
                };
        final String episodeId = EpisodeRunner.episodeId(TRAIN.split(), 5, 0, "r1");
        final EpisodeRunner.Episode run =
                new EpisodeRunner(1, 4, CLOCK).run(TRAIN, model, "agent-0", episodeId, 5, 0, 0);
        final List<Transition> episode = run.transitions();
        assertThat(episode).hasSize(4);
        assertThat(episodeId).isEqualTo("train-5-0@r1");
        assertThat(episode.get(3).getTransitionId()).isEqualTo("alfworld/train-5-0@r1/3");
        assertThat(run.choices()).hasSize(4);
        assertThat(run.choices().get(1).problem()).contains("the reasoning is never closed");
        assertThat(run.choices().get(0).action()).isEqualTo(episode.get(0).getAction());
        assertThat(episode)
                .allSatisfy(
                        t -> {
                            assertThat(t.getPolicy().getName()).isEqualTo("model");
                            assertThat(t.getPolicy().getModelVersion()).isEqualTo(7L);
                            // The agent remembers every earlier turn; the transition keeps H = 1.
                            final List<Turn> remembered = seen.get(t.getStep());
                            assertThat(remembered).hasSize(t.getStep());
                            assertThat(t.getHistory())
                                    .isEqualTo(
                                            remembered.subList(
                                                    Math.max(0, remembered.size() - 1),
                                                    remembered.size()));
                        });
        assertThat(seen.get(0)).isEmpty();
        assertThat(seen.get(3)).hasSize(3);
        assertThat(seen.get(3).get(0).getAction()).isEqualTo(episode.get(0).getAction());
        final Transition unreadable = episode.get(1);
        assertThat(unreadable.getActionValid()).isFalse();
        assertThat(unreadable.getAction()).isEqualTo("<think>hmm");
        assertThat(unreadable.getNextObservation()).isEqualTo(AlfworldEnvironment.NOTHING);
        assertThat(unreadable.getMetadata())
                .containsEntry(EpisodeRunner.INVALID_ANSWER, "the reasoning is never closed");
        assertThat(episode.get(0).getMetadata()).doesNotContainKey(EpisodeRunner.INVALID_ANSWER);
        assertThat(episode.get(0).getActionValid()).isTrue();
    }

    @Test
    void shouldRunAnyEnvironmentAndKeepItsNextStateKind() {
        final EnvironmentSource dialogue =
                new EnvironmentSource("retail", "1", "test", seed -> new TwoTurnDialogue());
        final List<Transition> episode =
                EpisodeRunner.withClock(CLOCK).run(dialogue, new RandomAgent(), "a", 1, 0);
        assertThat(episode)
                .extracting(Transition::getNextKind)
                .containsExactly(NextStateKind.TOOL_RESULT, NextStateKind.USER_MESSAGE);
        assertThat(episode.get(1).getTransitionId()).isEqualTo("retail/test-1-0/1");
        assertThat(episode.get(1).getDone()).isTrue();
        assertThat(episode.get(1).getMetadata()).isEmpty();
    }

    /** A minimal tool-use dialogue: a tool call answered by JSON, then a message the user ends. */
    private static final class TwoTurnDialogue implements Environment {
        private int turn;
        private String observation = "Hi! How can I help you today?";

        @Override
        public String name() {
            return "retail";
        }

        @Override
        public String task() {
            return "help the user";
        }

        @Override
        public String observation() {
            return observation;
        }

        @Override
        public List<String> admissibleActions() {
            return turn == 0 ? List.of("{\"name\":\"list_all_product_types\"}") : List.of("Done!");
        }

        @Override
        public String inadmissibleAction(final java.util.random.RandomGenerator rng) {
            return "{\"name\":\"no_such_tool\"}";
        }

        @Override
        public Optional<String> expertAction() {
            return Optional.empty();
        }

        @Override
        public Step step(final String action) {
            turn++;
            observation = turn == 1 ? "{\"t-shirt\":\"1\"}" : "###STOP###";
            return new Step(
                    observation,
                    turn == 1 ? NextStateKind.TOOL_RESULT : NextStateKind.USER_MESSAGE,
                    0.0,
                    turn == 2,
                    true);
        }

        @Override
        public boolean done() {
            return turn >= 2;
        }

        @Override
        public Map<String, String> metadata() {
            return Map.of();
        }
    }
}
