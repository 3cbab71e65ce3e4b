package dev.rwml.reward.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.events.Difficulty;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubsamplePolicyTest {

    private static List<String> ids(final int n) {
        final List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add("alfworld/ep-" + (i / 30) + "/" + (i % 30));
        }
        return ids;
    }

    private static List<Boolean> decisions(final SubsamplePolicy policy, final List<String> ids) {
        final List<Boolean> kept = new ArrayList<>(ids.size());
        for (final String id : ids) {
            kept.add(policy.decide(id, Difficulty.EASY).kept());
        }
        return kept;
    }

    @Test
    void shouldKeepTheConfiguredShareOfTenThousandEasyGroups() {
        final List<Boolean> kept = decisions(SubsamplePolicy.paperDefaults(), ids(10_000));
        final long count = kept.stream().filter(k -> k).count();
        assertThat(count / 10_000.0).isCloseTo(0.1, within(0.01));
    }

    @Test
    void shouldMakeTheSameDecisionsForTheSameIdsAndSeed() {
        final List<String> ids = ids(10_000);
        final SubsamplePolicy policy = new SubsamplePolicy(0.1, true, 42);
        assertThat(decisions(policy, ids))
                .isEqualTo(decisions(new SubsamplePolicy(0.1, true, 42), ids));
        assertThat(decisions(policy, ids))
                .isNotEqualTo(decisions(new SubsamplePolicy(0.1, true, 43), ids));
    }

    @Test
    void shouldKeepEveryInformativeGroupAndHardGroupsByOption() {
        assertThat(SubsamplePolicy.paperDefaults().decide("x", Difficulty.INFORMATIVE))
                .isEqualTo(KeepDecision.INFORMATIVE);
        assertThat(new SubsamplePolicy(0.1, true, 0).decide("x", Difficulty.HARD))
                .isEqualTo(KeepDecision.HARD_KEPT);
        assertThat(new SubsamplePolicy(0.1, false, 0).decide("x", Difficulty.HARD))
                .isEqualTo(KeepDecision.HARD_DROPPED);
    }

    @Test
    void shouldKeepAllOrNoEasyGroupsAtTheBounds() {
        final List<String> ids = ids(1000);
        assertThat(decisions(new SubsamplePolicy(1.0, true, 0), ids)).doesNotContain(false);
        assertThat(decisions(new SubsamplePolicy(0.0, true, 0), ids)).doesNotContain(true);
    }

    @Test
    void shouldSpreadHashesUniformlyOverTheUnitInterval() {
        final int[] buckets = new int[10];
        for (final String id : ids(10_000)) {
            final double u = SubsamplePolicy.unitHash(id, 7);
            assertThat(u).isBetween(0.0, 1.0).isNotEqualTo(1.0);
            buckets[(int) (u * 10)]++;
        }
        for (final int bucket : buckets) {
            assertThat(bucket).isBetween(900, 1100);
        }
    }
}
