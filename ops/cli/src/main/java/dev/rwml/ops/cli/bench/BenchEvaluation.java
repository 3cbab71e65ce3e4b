package dev.rwml.ops.cli.bench;

import dev.rwml.evaluation.AgentEvaluation;
import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.EvalSettings;
import dev.rwml.evaluation.Evaluation;
import dev.rwml.evaluation.GuidedAgent;
import dev.rwml.evaluation.HeldOutSet;
import dev.rwml.evaluation.ModelCatalog;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.demo.DemoSettings;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's {@code rwml eval}: ALFWorld's seen and unseen validation splits, drift on unseen
 * texts and the guided agent, for the base and every trained model at the training reward spec.
 */
final class BenchEvaluation {

    private static final String UNSEEN = "alfworld/valid_unseen";
    private static final List<String> SPLITS = List.of("alfworld/valid_seen", UNSEEN);

    private final BenchRun.Settings settings;
    private final Evaluation.Progress progress;

    BenchEvaluation(final BenchRun.Settings settings, final Evaluation.Progress progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /**
     * Evaluates version 0 of the base, the latest version of each of {@code runs}, and the matched
     * version of those in {@code matched}.
     */
    EvalReport run(
            final Connection connection, final List<String> runs, final Map<String, Long> matched) {
        final DemoSettings demo = settings.demo();
        final EvalSettings eval =
                new EvalSettings(
                        settings.evalSamples(),
                        DemoSettings.SEED,
                        settings.bootstrap(),
                        1f,
                        1f,
                        demo.maxNewTokens(),
                        true);
        final List<HeldOutSet> sets = heldOutSets();
        final Map<String, List<Transition>> texts = driftTexts();
        final AgentEvaluation agent = agent();
        final RewardSpecTable specs =
                demo.rewardSpec().isBlank()
                        ? RewardSpecTable.paperDefaults()
                        : RewardSpecTable.parse(demo.rewardSpec());
        final SimilarityScorer scorer =
                new SimilarityScorer(EmbeddingSettings.defaults().create(System.getenv()));
        try (ModelCatalog catalog = new ModelCatalog(connection)) {
            catalog.addRun(BenchRun.BASE_RUN, List.of("0"));
            for (final String run : runs) {
                catalog.addRun(
                        run,
                        matched.containsKey(run)
                                ? List.of(Long.toString(matched.get(run)), "latest")
                                : List.of("latest"));
            }
            return new Evaluation(sets, texts, run -> specs, scorer, eval, progress, agent)
                    .run(catalog);
        }
    }

    private List<HeldOutSet> heldOutSets() {
        final List<HeldOutSet> sets = new ArrayList<>();
        for (final String split : SPLITS) {
            sets.add(heldOut(split, settings.evalTransitions()));
        }
        return sets;
    }

    private Map<String, List<Transition>> driftTexts() {
        final Map<String, List<Transition>> texts = new LinkedHashMap<>();
        texts.put(
                "alfworld",
                heldOut(UNSEEN, Math.max(8, settings.evalTransitions() / 2)).transitions());
        return texts;
    }

    private HeldOutSet heldOut(final String split, final int transitions) {
        return HeldOutSet.generate(
                split, transitions, DemoSettings.SEED, settings.demo().epsilon());
    }

    private AgentEvaluation agent() {
        return new AgentEvaluation(
                List.of(UNSEEN),
                new GuidedAgent.Settings(settings.agentEpisodes(), 3, 0.2, 0.3),
                DemoSettings.SEED,
                settings.bootstrap(),
                1);
    }
}
