package dev.rwml.scoring.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class GroupStatisticsTest {

    @Test
    void shouldNormaliseAdvantagesByStdUnderGrpo() {
        final GroupStatistics s =
                GroupStatistics.of(new double[] {1, 0, 0, 1}, AdvantageMode.GRPO, 1e-6);
        assertThat(s.mean()).isEqualTo(0.5);
        assertThat(s.std()).isEqualTo(0.5);
        assertThat(s.passRate()).isEqualTo(0.5);
        assertThat(s.advantages()[0]).isCloseTo(1.0, within(1e-5));
        assertThat(s.advantages()[1]).isCloseTo(-1.0, within(1e-5));
    }

    @Test
    void shouldOnlyCentreAdvantagesUnderDrGrpo() {
        final GroupStatistics s =
                GroupStatistics.of(new double[] {1, 0, 0, 0}, AdvantageMode.DR_GRPO, 1e-6);
        assertThat(s.advantages()).containsExactly(0.75, -0.25, -0.25, -0.25);
    }

    @Test
    void shouldGiveAllPassAndNonePassGroupsZeroAdvantages() {
        final GroupStatistics easy =
                GroupStatistics.of(new double[] {1, 1}, AdvantageMode.GRPO, 1e-6);
        final GroupStatistics hard =
                GroupStatistics.of(new double[] {0, 0}, AdvantageMode.GRPO, 1e-6);
        assertThat(easy.advantages()).containsExactly(0.0, 0.0);
        assertThat(hard.passRate()).isZero();
    }

    @Test
    void shouldParseAdvantageModes() {
        assertThat(AdvantageMode.parse("dr-grpo")).isEqualTo(AdvantageMode.DR_GRPO);
        assertThat(AdvantageMode.parse("GRPO")).isEqualTo(AdvantageMode.GRPO);
    }
}
