package dev.rwml.env.imports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import dev.rwml.env.produce.EpisodeClock;
import dev.rwml.env.recorded.RecordedEpisode;
import dev.rwml.env.recorded.RecordedStep;
import dev.rwml.env.recorded.TrajectoryParser;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TrajectoryImporterTest {

    private static final Instant BASE = Instant.parse("2026-03-01T00:00:00Z");

    @Test
    void shouldBuildTheSameTransitionsAsTheLiveRunnerWhenReplayingItsEpisode() {
        final EnvironmentSource source = AlfworldGames.source(Split.TRAIN, Grammar.CURRENT);
        for (final int history : new int[] {0, 2, 5}) {
            final List<Transition> live =
                    new EpisodeRunner(
                                    history,
                                    EpisodeRunner.DEFAULT_MAX_STEPS,
                                    EpisodeClock.forEpisode(BASE, 0))
                            .run(source, new EpsilonExpertAgent(0.3, 0.1), "agent-0", 11, 0);
            final RecordedEpisode recorded = record(live);
            final List<Transition> imported =
                    recorded.transitions(history, EpisodeClock.forEpisode(BASE, 0));
            assertThat(imported).hasSameSizeAs(live);
            for (int i = 0; i < live.size(); i++) {
                // Everything but the identity fields must match the live record exactly.
                final Transition expected =
                        Transition.newBuilder(live.get(i))
                                .setEpisodeId("rec-1")
                                .setTransitionId("alfworld/rec-1/" + i)
                                .build();
                expected.getPolicy().setName("recorded");
                assertThat(imported.get(i)).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldLeaveAdmissibleActionsUnsetWhenTheFileDoesNotRecordThem() throws Exception {
        final RecordedEpisode e =
                new TrajectoryParser(Optional.empty(), Optional.empty())
                        .parse(
                                1,
                                "{\"env\":\"retail\",\"split\":\"test\",\"episode_id\":\"c/1\","
                                        + "\"task\":\"t\",\"initial_observation\":\"Hi!\","
                                        + "\"steps\":[{\"action\":\"a\",\"observation\":\"o1\"},"
                                        + "{\"action\":\"b\",\"observation\":\"o2\",\"done\":true}]}");
        final List<Transition> ts = e.transitions(1, EpisodeClock.forEpisode(BASE, 0));
        assertThat(ts)
                .extracting(Transition::getTransitionId)
                .containsExactly("retail/c/1/0", "retail/c/1/1");
        assertThat(ts).extracting(Transition::getAdmissibleActions).containsOnlyNulls();
        assertThat(ts.get(1).getObservation()).isEqualTo("o1");
        assertThat(ts.get(1).getHistory()).containsExactly(new Turn("a", "Hi!"));
        assertThat(ts.get(1).getDone()).isTrue();
        assertThat(ts.get(1).getEventTime()).isEqualTo(BASE.plusSeconds(1));
    }

    /** The live episode written as a recording, as a Python exporter would. */
    private static RecordedEpisode record(final List<Transition> live) {
        final Transition first = live.get(0);
        return new RecordedEpisode(
                1,
                first.getEnv().getName(),
                first.getEnv().getVersion(),
                first.getEnv().getSplit(),
                "rec-1",
                first.getTask(),
                first.getObservation(),
                "recorded",
                first.getAgentId(),
                live.stream()
                        .map(
                                t ->
                                        new RecordedStep(
                                                t.getAction(),
                                                t.getNextObservation(),
                                                t.getEnvReward(),
                                                t.getDone(),
                                                t.getActionValid(),
                                                t.getNextKind(),
                                                Optional.of(t.getAdmissibleActions())))
                        .toList(),
                first.getMetadata());
    }
}
