package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BootstrapTest {

    @Test
    void shouldCoverTheTrueMeanOfABernoulliInAboutNinetyFivePercentOfSamples() {
        // 200 draws of Bernoulli(0.3), 200 times: a 95% interval should miss the truth about 10
        // times; the bounds below allow for the percentile bootstrap's small-sample slack.
        final SplittableRandom random = new SplittableRandom(42);
        final Bootstrap bootstrap = new Bootstrap(400, 1);
        int covered = 0;
        for (int trial = 0; trial < 200; trial++) {
            final double[] values = new double[200];
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextDouble() < 0.3 ? 1 : 0;
            }
            if (bootstrap.mean(values, "trial " + trial).covers(0.3)) {
                covered++;
            }
        }
        assertThat(covered).isBetween(180, 198);
    }

    @Test
    void shouldGiveAnIntervalOfAboutTwoStandardErrorsAroundTheMean() {
        final SplittableRandom random = new SplittableRandom(3);
        final double[] values = new double[400];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextGaussian();
        }
        final Interval interval = new Bootstrap(2000, 5).mean(values, "normal");
        final double se = 1 / Math.sqrt(values.length);
        assertThat(interval.low()).isLessThan(interval.estimate());
        assertThat(interval.high()).isGreaterThan(interval.estimate());
        assertThat(interval.high() - interval.low())
                .isBetween(2 * 1.96 * se * 0.85, 2 * 1.96 * se * 1.15);
    }

    @Test
    void shouldGiveIdenticalIntervalsForTheSameSeedAndKey() {
        final double[] values = {0, 1, 1, 0, 0.5, 0.25, 1, 0, 0, 1};
        final Interval a = new Bootstrap(500, 11).mean(values, "set|all");
        final Interval b = new Bootstrap(500, 11).mean(values, "set|all");
        final Interval other = new Bootstrap(500, 12).mean(values, "set|all");
        assertThat(a).isEqualTo(b);
        assertThat(other.estimate()).isEqualTo(a.estimate());
        assertThat(other).isNotEqualTo(a);
    }

    @Test
    void shouldResampleEveryMetricOnTheSameDraw() {
        // Two identical columns must get identical intervals: one draw serves every metric.
        final double[] values = {0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0};
        final Interval[] both = new Bootstrap(300, 2).means(new double[][] {values, values}, "k");
        assertThat(both[0]).isEqualTo(both[1]);
    }

    @Test
    void shouldCollapseTheIntervalOfAConstant() {
        final Interval interval = new Bootstrap(100, 1).mean(new double[] {1, 1, 1, 1}, "c");
        assertThat(interval).isEqualTo(new Interval(1, 1, 1));
        assertThat(interval.format()).isEqualTo("1.000 [1.000, 1.000]");
    }

    @Test
    void shouldRefuseZeroResamples() {
        assertThatThrownBy(() -> new Bootstrap(0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--bootstrap");
    }

    /** Rows of {@code episodes} episodes of {@code steps} steps; a - b = delta + noise. */
    private static List<Bootstrap.PairedRow> rows(
            final int episodes,
            final int steps,
            final double delta,
            final double episodeEffect,
            final double noise,
            final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<Bootstrap.PairedRow> out = new ArrayList<>();
        for (int e = 0; e < episodes; e++) {
            final double shift = episodeEffect * random.nextGaussian();
            for (int s = 0; s < steps; s++) {
                final double difficulty = random.nextGaussian();
                out.add(
                        new Bootstrap.PairedRow(
                                "episode-" + e,
                                difficulty + delta + shift + noise * random.nextGaussian(),
                                difficulty + noise * random.nextGaussian()));
            }
        }
        return out;
    }

    private static double width(final Interval i) {
        return i.high() - i.low();
    }

    @Test
    void shouldRecoverAKnownPairedDifferenceInAboutNinetyFivePercentOfSets() {
        // 100 sets of 60 episodes x 5 steps whose episodes shift the difference: a 95% interval
        // should miss 0.3 about 5 times.
        final Bootstrap bootstrap = new Bootstrap(400, 3);
        int covered = 0;
        for (int trial = 0; trial < 100; trial++) {
            final Interval d =
                    bootstrap.pairedDifference(rows(60, 5, 0.3, 0.2, 0.2, trial), "t" + trial);
            assertThat(d.estimate()).isCloseTo(0.3, within(0.15));
            assertThat(d.low()).as("the difference is told from none").isPositive();
            if (d.covers(0.3)) {
                covered++;
            }
        }
        assertThat(covered).isBetween(86, 99);
    }

    @Test
    void shouldWidenTheIntervalWhenRowsOfAnEpisodeAreCorrelated() {
        // Each episode shifts all its rows' difference alike: 40 episodes are not 400 transitions.
        final List<Bootstrap.PairedRow> clustered = rows(40, 10, 0.1, 1, 0.2, 2);
        final List<Bootstrap.PairedRow> independent = new ArrayList<>();
        for (int i = 0; i < clustered.size(); i++) {
            final Bootstrap.PairedRow r = clustered.get(i);
            independent.add(new Bootstrap.PairedRow("transition-" + i, r.a(), r.b()));
        }
        final Bootstrap bootstrap = new Bootstrap(1000, 4);
        final Interval byEpisode = bootstrap.pairedDifference(clustered, "d");
        final Interval byTransition = bootstrap.pairedDifference(independent, "d");
        assertThat(byEpisode.estimate()).isEqualTo(byTransition.estimate());
        assertThat(width(byEpisode)).isGreaterThan(2 * width(byTransition));
    }

    @Test
    void shouldCancelTheSharedDifficultyOfEachTransitionWhenPaired() {
        final List<Bootstrap.PairedRow> rows = rows(50, 4, 0.1, 0, 0.1, 5);
        final Bootstrap bootstrap = new Bootstrap(1000, 6);
        final List<String> clusters = rows.stream().map(Bootstrap.PairedRow::cluster).toList();
        final Interval a =
                bootstrap
                        .means(
                                new double[][] {rows.stream().mapToDouble(r -> r.a()).toArray()},
                                clusters,
                                "a")[0];
        final Interval b =
                bootstrap
                        .means(
                                new double[][] {rows.stream().mapToDouble(r -> r.b()).toArray()},
                                clusters,
                                "b")[0];
        final Interval paired = bootstrap.pairedDifference(rows, "a-b");
        assertThat(paired.estimate()).isCloseTo(a.estimate() - b.estimate(), within(1e-9));
        assertThat(width(paired))
                .as("the difference of the marginal intervals spans both widths")
                .isLessThan((width(a) + width(b)) / 4);
        assertThat(a.low() - b.high() < 0 && paired.low() > 0)
                .as("only paired is the difference told from none")
                .isTrue();
    }

    @Test
    void shouldGiveTheSamePairedIntervalForTheSameSeedAndKey() {
        final List<Bootstrap.PairedRow> rows = rows(20, 3, 0.05, 0.5, 0.3, 7);
        final Interval a = new Bootstrap(500, 11).pairedDifference(rows, "x");
        assertThat(new Bootstrap(500, 11).pairedDifference(rows, "x")).isEqualTo(a);
        assertThat(new Bootstrap(500, 12).pairedDifference(rows, "x")).isNotEqualTo(a);
        assertThat(new Bootstrap(500, 11).pairedDifference(rows, "y")).isNotEqualTo(a);
    }

    @Test
    void shouldDrawTheSameTransitionsWhenEachIsItsOwnCluster() {
        final double[] values = {0, 1, 1, 0, 0.5, 0.25, 1, 0, 0, 1};
        final List<String> own = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            own.add("t" + i);
        }
        final Bootstrap bootstrap = new Bootstrap(300, 9);
        assertThat(bootstrap.means(new double[][] {values}, own, "k")[0])
                .isEqualTo(bootstrap.mean(values, "k"));
    }

    private static TransitionScore score(final String id, final String episode, final double v) {
        return new TransitionScore(id, episode, "-", "TEXT", v, v, 0, v, Double.NaN, Double.NaN, 0);
    }

    private static EvalReport.SetResult set(final String name, final List<TransitionScore> rows) {
        return new EvalReport.SetResult(name, rows.size(), 0, null, Map.of(), Map.of(), rows);
    }

    @Test
    void shouldPairTwoModelsRowsByTransitionIdWhateverTheirOrder() {
        final List<TransitionScore> a =
                List.of(score("t1", "e1", 1), score("t2", "e1", 0.5), score("t3", "e2", 0));
        final List<TransitionScore> b = new ArrayList<>(List.of(score("t1", "e1", 0.25)));
        b.add(score("t2", "e1", 0.75));
        b.add(score("t3", "e2", 1));
        Collections.reverse(b);
        assertThat(Bootstrap.pair(set("s", a), set("s", b), TransitionScore::strict))
                .containsExactly(
                        new Bootstrap.PairedRow("e1", 1, 0.25),
                        new Bootstrap.PairedRow("e1", 0.5, 0.75),
                        new Bootstrap.PairedRow("e2", 0, 1));
    }

    @Test
    void shouldRefuseToPairDifferentSetsOrTransitions() {
        final List<TransitionScore> a = List.of(score("t1", "e1", 1), score("t2", "e1", 0));
        assertThatThrownBy(
                        () ->
                                Bootstrap.pair(
                                        set("seen", a), set("unseen", a), TransitionScore::pass))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seen")
                .hasMessageContaining("unseen");
        final List<TransitionScore> other = List.of(score("t1", "e1", 1), score("t9", "e1", 0));
        assertThatThrownBy(
                        () -> Bootstrap.pair(set("s", a), set("s", other), TransitionScore::pass))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 of them are shared");
        assertThatThrownBy(
                        () ->
                                Bootstrap.pair(
                                        set("s", a),
                                        set("s", a.subList(0, 1)),
                                        TransitionScore::pass))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scored 2 transitions, the other 1");
    }
}
