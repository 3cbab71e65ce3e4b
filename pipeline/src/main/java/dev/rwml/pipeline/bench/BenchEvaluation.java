package dev.rwml.pipeline.bench;

import dev.rwml.evaluation.AgentEvaluation;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.EvalSettings;
import dev.rwml.evaluation.Evaluation;
import dev.rwml.evaluation.GuidedAgent;
import dev.rwml.evaluation.HeldOutSet;
import dev.rwml.evaluation.ModelCatalog;
import dev.rwml.events.Transition;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's evaluation: every model on ALFWorld's valid_unseen (in the grammar the arms trained)
 * and on valid_unseen in the older grammar (the skill they did not train), with a greedy pass and
 * drift on both; then the guided agent for the models {@link BenchSummary} compares on it.
 */
final class BenchEvaluation {

    /** The in-domain held-out split, the primary one. */
    static final String UNSEEN = "alfworld/valid_unseen";

    /** The out-of-domain held-out split: the same rooms in the older command grammar. */
    static final String OLDER = "alfworld-older/valid_unseen";

    private final BenchRun.Settings settings;
    private final Evaluation.Progress progress;

    BenchEvaluation(final BenchRun.Settings settings, final Evaluation.Progress progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Evaluates version 0 of the base and the versions of {@code versions} (by run) on the held-out
     * sets, then plays the agent guided by the base and by the models of {@code agentRuns} (their
     * latest versions).
     */
    EvalReport run(
            final Connection connection,
            final Map<String, List<String>> versions,
            final List<String> agentRuns) {
        final DemoSettings demo = settings.demo();
        final BenchRun.Eval e = settings.eval();
        final EvalSettings eval =
                new EvalSettings(
                        e.samples(),
                        DemoSettings.SEED,
                        e.bootstrap(),
                        (float) e.temperature(),
                        1f,
                        settings.training().maxNewTokens(),
                        true);
        final HeldOutSet unseen = heldOut(UNSEEN, e.transitions());
        final HeldOutSet older = heldOut(OLDER, Math.max(4, e.transitions() / 2));
        final Map<String, List<Transition>> texts = new LinkedHashMap<>();
        texts.put(UNSEEN, unseen.transitions());
        texts.put(OLDER, older.transitions());
        final RewardSpecTable specs =
                demo.rewardSpec().isBlank()
                        ? RewardSpecTable.paperDefaults()
                        : RewardSpecTable.parse(demo.rewardSpec());
        final SimilarityScorer scorer =
                new SimilarityScorer(EmbeddingSettings.defaults().create(System.getenv()));
        final EvalReport sets;
        try (ModelCatalog catalog = new ModelCatalog(connection)) {
            catalog.addRun(BenchRun.BASE_RUN, List.of("0"));
            versions.forEach(catalog::addRun);
            sets =
                    new Evaluation(
                                    List.of(unseen, older),
                                    texts,
                                    run -> specs,
                                    scorer,
                                    eval,
                                    progress)
                            .run(catalog);
        }
        if (e.agentEpisodes() == 0) {
            return sets;
        }
        final EvalReport agents;
        try (ModelCatalog catalog = new ModelCatalog(connection)) {
            catalog.addRun(BenchRun.BASE_RUN, List.of("0"));
            agentRuns.forEach(run -> catalog.addRun(run, List.of("latest")));
            agents =
                    new Evaluation(
                                    List.of(),
                                    Map.of(),
                                    run -> specs,
                                    scorer,
                                    eval,
                                    progress,
                                    agent())
                            .run(catalog);
        }
        return new EvalReport(
                sets.samples(),
                sets.seed(),
                sets.bootstrap(),
                sets.rewardSpecs(),
                sets.models(),
                agents.agent(),
                agents.agents());
    }

    private HeldOutSet heldOut(final String split, final int transitions) {
        return HeldOutSet.generate(
                split,
                transitions,
                DemoSettings.SEED,
                settings.demo().epsilon(),
                settings.eval().perEpisode());
    }

    private AgentEvaluation agent() {
        return new AgentEvaluation(
                List.of(UNSEEN),
                new GuidedAgent.Settings(settings.eval().agentEpisodes(), 3, 0.2, 0.3),
                DemoSettings.SEED,
                settings.eval().bootstrap(),
                1);
    }
}
