package dev.rwml.worldmodel.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StepProfileTest {

    @Test
    void shouldSplitEachStepIntoPartsThatSumToIt() {
        final StepProfile profile = new StepProfile();
        for (int step = 0; step < 3; step++) {
            profile.begin();
            busy();
            profile.lap(StepProfile.Part.PROJECTIONS);
            busy();
            profile.lap(StepProfile.Part.ATTENTION);
            busy();
            profile.end();
        }
        assertThat(profile.steps()).isEqualTo(3);
        final double sum =
                profile.partsPerStep().values().stream().mapToDouble(Double::doubleValue).sum();
        assertThat(sum).isCloseTo(profile.millisPerStep(), within(1e-9));
        assertThat(profile.partsPerStep().get(StepProfile.Part.PROJECTIONS)).isPositive();
        assertThat(profile.partsPerStep().get(StepProfile.Part.OTHER)).isPositive();
        assertThat(profile.partsPerStep().get(StepProfile.Part.LM_HEAD)).isZero();
    }

    @Test
    void shouldNotCountLapsOutsideAStep() {
        final StepProfile profile = new StepProfile();
        busy();
        profile.lap(StepProfile.Part.PROJECTIONS);
        assertThat(profile.steps()).isZero();
        assertThat(profile.partsPerStep().values()).containsOnly(0.0);
    }

    /** Some CPU work, so that each lap takes measurable thread CPU time. */
    private static void busy() {
        final long start = StepProfile.cpuNanos();
        long x = 0;
        while (StepProfile.cpuNanos() - start < 200_000) {
            x += x * 31 + 7;
        }
        assertThat(x).isNotEqualTo(1);
    }
}
