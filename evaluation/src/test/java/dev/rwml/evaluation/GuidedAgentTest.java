package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.events.Transition;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guided agent with scripted world models, on held-out ALFWorld episodes. */
class GuidedAgentTest {

    private static final GuidedAgent.Settings SETTINGS = new GuidedAgent.Settings(12, 3, 0.2, 0.3);
    private static final EnvironmentSource SOURCE =
            HeldOutSet.sources("alfworld/valid_unseen").get(0);

    /** Knows the rules: "Nothing happens." exactly for the actions that are not admissible. */
    private static final GuidedAgent.Foresight KNOWS_THE_RULES =
            (candidates, seed) -> {
                final List<List<String>> out = new ArrayList<>();
                for (final Transition t : candidates) {
                    out.add(
                            List.of(
                                    t.getAdmissibleActions().contains(t.getAction())
                                            ? "You arrive at somewhere."
                                            : "Nothing happens."));
                }
                return out;
            };

    private static List<GuidedAgent.Episode> play(final GuidedAgent.Foresight foresight) {
        final GuidedAgent agent = new GuidedAgent(SETTINGS);
        final List<GuidedAgent.Episode> episodes = new ArrayList<>();
        for (int n = 0; n < SETTINGS.episodes(); n++) {
            episodes.add(agent.run(SOURCE, n, 7, foresight));
        }
        return episodes;
    }

    @Test
    void shouldNeverTakeAnActionAModelThatKnowsTheRulesPredictsToDoNothing() {
        final List<GuidedAgent.Episode> unguided = play(null);
        final List<GuidedAgent.Episode> guided = play(KNOWS_THE_RULES);
        assertThat(unguided.stream().mapToInt(GuidedAgent.Episode::invalid).sum())
                .as("the candidates include inadmissible actions")
                .isPositive();
        assertThat(guided).extracting(GuidedAgent.Episode::invalid).containsOnly(0);
        assertThat(guided.stream().mapToInt(GuidedAgent.Episode::avoided).sum()).isPositive();
        assertThat(guided.stream().filter(GuidedAgent.Episode::success).count())
                .isGreaterThanOrEqualTo(
                        unguided.stream().filter(GuidedAgent.Episode::success).count());
    }

    @Test
    void shouldActAsTheAgentWithoutAModelWhenEveryCandidateIsPredictedToDoNothing() {
        final GuidedAgent.Foresight pessimist =
                (candidates, seed) ->
                        candidates.stream().map(c -> List.of("Nothing happens.")).toList();
        final List<GuidedAgent.Episode> unguided = play(null);
        final List<GuidedAgent.Episode> guided = play(pessimist);
        assertThat(guided)
                .extracting(GuidedAgent.Episode::steps, GuidedAgent.Episode::invalid)
                .isEqualTo(
                        unguided.stream()
                                .map(
                                        e ->
                                                org.assertj.core.groups.Tuple.tuple(
                                                        e.steps(), e.invalid()))
                                .toList());
        assertThat(guided).extracting(GuidedAgent.Episode::avoided).containsOnly(0);
    }

    @Test
    void shouldGiveTheSameEpisodesAndIntervalsForTheSameSeed() {
        final AgentEvaluation evaluation =
                new AgentEvaluation(
                        List.of("alfworld/valid_unseen"),
                        new GuidedAgent.Settings(6, 3, 0.2, 0.3),
                        7,
                        new Bootstrap(200, 7),
                        1);
        final List<EvalReport.AgentResult> first =
                evaluation.play("rules", KNOWS_THE_RULES, Evaluation.Progress.NONE);
        final List<EvalReport.AgentResult> second =
                evaluation.play("rules", KNOWS_THE_RULES, Evaluation.Progress.NONE);
        assertThat(second).isEqualTo(first);
        final EvalReport.AgentResult r = first.get(0);
        assertThat(r.episodes()).isEqualTo(6);
        assertThat(r.invalidRate().estimate()).isZero();
        assertThat(r.success().low()).isLessThanOrEqualTo(r.success().estimate());
        assertThat(r.success().high()).isGreaterThanOrEqualTo(r.success().estimate());
        final EvalReport.AgentResult baseline =
                evaluation.play(EvalReport.NO_WORLD_MODEL, null, Evaluation.Progress.NONE).get(0);
        assertThat(baseline.invalidRate().estimate()).isPositive();
    }

    @Test
    void shouldTellAnActionThatDidNothing() {
        assertThat(GuidedAgent.doesNothing("Nothing happens.")).isTrue();
        assertThat(GuidedAgent.doesNothing(" Error: order #W1 is not pending")).isTrue();
        assertThat(GuidedAgent.doesNothing("You arrive at fridge 1.")).isFalse();
        assertThat(GuidedAgent.predictsNothing(java.util.Arrays.asList(null, "Nothing happens.")))
                .isTrue();
        assertThat(GuidedAgent.predictsNothing(java.util.Arrays.asList((String) null))).isFalse();
    }
}
