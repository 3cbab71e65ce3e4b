package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
