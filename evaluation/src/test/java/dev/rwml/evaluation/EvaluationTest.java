package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.events.Transition;
import dev.rwml.scoring.embed.TextEmbedder;
import dev.rwml.scoring.score.RewardSpecTable;
import dev.rwml.scoring.score.SimilarityScorer;
import dev.rwml.worldmodel.BaseModelTrainer;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.Tensor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The evaluation end to end on two tiny exported checkpoints, without a cluster. */
class EvaluationTest {

    @TempDir static Path dir;

    private static HeldOutSet set;
    private static Map<String, List<Transition>> texts;

    /** Hashes character bigrams: similar texts get similar vectors, deterministically. */
    private static final class BigramEmbedder implements TextEmbedder {
        @Override
        public String modelName() {
            return "bigrams";
        }

        @Override
        public List<float[]> embedAll(final List<String> batch) {
            final List<float[]> out = new ArrayList<>();
            for (final String t : batch) {
                final float[] v = new float[64];
                final byte[] b = t.getBytes(StandardCharsets.UTF_8);
                for (int i = 0; i + 1 < b.length; i++) {
                    v[Math.floorMod(b[i] * 31 + b[i + 1], 64)] += 1;
                }
                v[0] += 1e-3f;
                out.add(v);
            }
            return out;
        }
    }

    @BeforeAll
    static void exportTwoVersions() throws Exception {
        set = HeldOutSet.generate("alfworld/valid_seen", 12, 7, 0.3);
        texts = new LinkedHashMap<>();
        texts.put(
                "alfworld", HeldOutSet.generate("alfworld/valid_unseen", 6, 7, 0.3).transitions());
        texts.put("tau2", HeldOutSet.generate("tau2/test", 6, 7, 0.3).transitions());
        texts.put(
                "alfworld-older",
                HeldOutSet.generate("alfworld-older/valid_unseen", 6, 7, 0.3).transitions());
        // A base that writes the output format: a few SFT steps on training episodes of both
        // environments, so samples parse and their similarities vary with the seed.
        final List<Transition> slice = new ArrayList<>();
        final EpisodeRunner runner =
                EpisodeRunner.withClock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
        for (int n = 0; n < 12; n++) {
            slice.addAll(
                    runner.run(
                            EnvKind.ALFWORLD.source("train", Grammar.CURRENT),
                            PolicyKind.EPSILON.agent(0.3, PolicyKind.DEFAULT_INVALID_RATE),
                            "t",
                            1,
                            n));
            slice.addAll(
                    runner.run(
                            EnvKind.RETAIL.source("train", Grammar.CURRENT),
                            PolicyKind.EPSILON.agent(0.3, PolicyKind.DEFAULT_INVALID_RATE),
                            "t",
                            1,
                            n));
        }
        final Checkpoint v0 =
                new BaseModelTrainer()
                        .train(slice, BaseModelTrainer.Settings.of("tiny", 80, 1), (m, total) -> {})
                        .checkpoint();
        final String tokenizer = v0.tokenizerJson();
        Files.write(dir.resolve("tiny-v0.zip"), v0.toBytes());
        // Version 1: every tenth value of every tensor moved by 5%.
        final Map<String, Tensor> moved = new LinkedHashMap<>();
        v0.weights()
                .forEach(
                        (name, t) -> {
                            final float[] data = t.data().clone();
                            for (int i = 0; i < data.length; i += 10) {
                                data[i] = data[i] * 1.05f + (data[i] == 0 ? 0.01f : 0);
                            }
                            moved.put(name, new Tensor(t.shape(), data));
                        });
        Files.write(
                dir.resolve("tiny-v1.zip"),
                new Checkpoint(1, v0.config(), tokenizer, moved, Map.of()).toBytes());
    }

    private static EvalReport evaluate(final long seed) {
        final Evaluation evaluation =
                new Evaluation(
                        List.of(set),
                        texts,
                        run -> RewardSpecTable.parse("TEXT=cosine:0.6"),
                        new SimilarityScorer(new BigramEmbedder()),
                        new EvalSettings(2, seed, 200, 1f, 1f, 16, true),
                        Evaluation.Progress.NONE);
        try (ModelCatalog catalog = new ModelCatalog(null)) {
            catalog.addDirectory(dir);
            return evaluation.run(catalog);
        }
    }

    @Test
    void shouldGiveIdenticalNumbersForTheSameSeed() {
        final EvalReport first = evaluate(7);
        final EvalReport second = evaluate(7);
        assertThat(second)
                .as("everything but the time each model took")
                .usingRecursiveComparison()
                .ignoringFields("models.seconds")
                .isEqualTo(first);
        final EvalReport.SetResult a = first.models().get(1).sets().get(0);
        final EvalReport.SetResult b = evaluate(8).models().get(1).sets().get(0);
        assertThat(b.all().similarity())
                .as("another seed draws other samples")
                .isNotEqualTo(a.all().similarity());
    }

    @Test
    void shouldReportFiguresPerTaskTypeAndKindAndTheDriftFromVersionZero() {
        final EvalReport report = evaluate(7);
        assertThat(report.models())
                .extracting(EvalReport.ModelResult::label)
                .containsExactly("tiny@0", "tiny@1");
        final EvalReport.SetResult r = report.models().get(0).sets().get(0);
        assertThat(r.transitions() + r.skipped()).isEqualTo(12);
        assertThat(r.byKind()).containsOnlyKeys("TEXT");
        assertThat(r.byTaskType()).isNotEmpty().doesNotContainKey("-");
        final EvalReport.Figures all = r.all();
        assertThat(all.similarity().low()).isLessThanOrEqualTo(all.similarity().estimate());
        assertThat(all.similarity().high()).isGreaterThanOrEqualTo(all.similarity().estimate());
        assertThat(r.rows()).hasSize(r.transitions());
        assertThat(r.rows())
                .extracting(TransitionScore::transitionId)
                .isSubsetOf(set.transitions().stream().map(Transition::getTransitionId).toList());
        assertThat(r.rows())
                .allSatisfy(
                        row -> {
                            assertThat(row.transitionId()).contains(row.episodeId());
                            assertThat(row.greedyPass()).isIn(0.0, 1.0);
                            assertThat(row.greedyStrict()).isLessThanOrEqualTo(row.greedyPass());
                            assertThat(row.capped()).isBetween(0.0, 1.0);
                        });
        assertThat(all.greedyStrict().estimate())
                .isEqualTo(
                        r.rows().stream()
                                .mapToDouble(TransitionScore::greedyStrict)
                                .average()
                                .orElseThrow());
        assertThat(all.capped().low()).isLessThanOrEqualTo(all.capped().estimate());

        final EvalReport.Drift self = report.models().get(0).drift();
        assertThat(self.parameters().changed()).isZero();
        assertThat(self.kl().get("alfworld"))
                .isCloseTo(0.0, org.assertj.core.api.Assertions.within(1e-6));

        final EvalReport.Drift moved = report.models().get(1).drift();
        assertThat(moved.baseLabel()).isEqualTo("tiny@0");
        assertThat(moved.parameters().fraction()).isBetween(0.05, 0.15);
        assertThat(moved.kl().get("alfworld")).isBetween(1e-9, 10.0);
        assertThat(moved.texts().get("alfworld")).isPositive();
        assertThat(moved.perplexity().get("alfworld")).isGreaterThan(1.0);
        assertThat(moved.parameters().fractionWithoutEmbeddings()).isBetween(0.05, 0.15);
        assertThat(moved.parameters().totalWithoutEmbeddings())
                .isLessThan(moved.parameters().total());
        // Every tenth value scaled by 1.05: a relative change of about 0.05 / sqrt(10).
        assertThat(moved.parameters().relativeChange().get("tok_emb.weight"))
                .isBetween(0.005, 0.05);
        assertThat(self.parameters().relativeChange().values()).containsOnly(0.0);
    }

    @Test
    void shouldReportPerplexityAndKlOnEveryNamedTextSetOutOfDomainToo() {
        assertThat(texts.get("alfworld-older"))
                .as("the older grammar's arrivals name locations")
                .anyMatch(t -> t.getNextObservation().startsWith("You arrive at loc "));
        final EvalReport report = evaluate(7);
        final EvalReport.Drift self = report.models().get(0).drift();
        final EvalReport.Drift moved = report.models().get(1).drift();
        assertThat(moved.perplexity()).containsOnlyKeys("alfworld", "tau2", "alfworld-older");
        assertThat(moved.kl()).containsOnlyKeys("alfworld", "tau2", "alfworld-older");
        assertThat(moved.texts().get("alfworld-older")).isPositive();
        assertThat(moved.perplexity().get("alfworld-older"))
                .isGreaterThan(1.0)
                .isNotEqualTo(moved.perplexity().get("alfworld"));
        assertThat(moved.kl().get("alfworld-older")).isBetween(1e-9, 10.0);
        assertThat(self.kl().get("alfworld-older"))
                .isCloseTo(0.0, org.assertj.core.api.Assertions.within(1e-6));
    }
}
