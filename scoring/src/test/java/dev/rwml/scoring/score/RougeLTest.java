package dev.rwml.scoring.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class RougeLTest {

    @Test
    void shouldComputeF1OfLongestCommonSubsequence() {
        // LCS of "a b c d" and "a c e" is "a c": P = 2/4, R = 2/3, F1 = 4/7.
        assertThat(RougeL.f1(List.of("a", "b", "c", "d"), List.of("a", "c", "e")))
                .isCloseTo(4.0 / 7, within(1e-12));
    }

    @Test
    void shouldScoreIdenticalAsOneAndDisjointAsZero() {
        assertThat(RougeL.f1(List.of("x", "y"), List.of("x", "y"))).isEqualTo(1.0);
        assertThat(RougeL.f1(List.of("x"), List.of("y"))).isZero();
        assertThat(RougeL.f1(List.of(), List.of("y"))).isZero();
        assertThat(RougeL.f1(List.of(), List.of())).isEqualTo(1.0);
    }

    @Test
    void shouldRoundToTheNearestFifth() {
        assertThat(RougeL.roundToFifth(0.09)).isZero();
        assertThat(RougeL.roundToFifth(0.11)).isEqualTo(0.2);
        assertThat(RougeL.roundToFifth(4.0 / 7)).isEqualTo(0.6);
        assertThat(RougeL.roundToFifth(0.71)).isEqualTo(0.8);
        assertThat(RougeL.roundToFifth(0.95)).isEqualTo(1.0);
    }
}
