package dev.rwml.pipeline.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.prediction.GenerationGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class RoundPlanTest {

    /** Offsets with gaps, as transaction markers leave them. */
    private static List<Long> offsets(final int count) {
        return LongStream.range(0, count).map(i -> 2 * i + 1).boxed().toList();
    }

    @Test
    void shouldCutEveryPartitionIntoAsManyNearlyEqualSharesAsThereAreRounds() {
        final RoundPlan plan = RoundPlan.of(Map.of(0, offsets(10), 1, offsets(5), 2, List.of()), 4);

        assertThat(plan.size()).as("15 transitions in rounds of about 4").isEqualTo(4);
        final List<Long> all0 = new ArrayList<>();
        final List<Long> all1 = new ArrayList<>();
        for (int k = 0; k < plan.size(); k++) {
            all0.addAll(plan.rounds().get(k).getOrDefault(0, List.of()));
            all1.addAll(plan.rounds().get(k).getOrDefault(1, List.of()));
            // each partition gives the floor of its share: within one transition per partition
            assertThat(plan.transitions(k)).isBetween(15 / 4 - 2, 15 / 4 + 2);
            assertThat(plan.rounds().get(k)).doesNotContainKey(2);
        }
        assertThat(all0).as("each record once, in order").isEqualTo(offsets(10));
        assertThat(all1).isEqualTo(offsets(5));
        assertThat(plan.transitionsBefore(plan.size())).isEqualTo(15);
        assertThat(plan.lastOffsets(0)).isEqualTo(Map.of(0, 3L, 1, 1L));
    }

    @Test
    void shouldDependOnTheSliceAlone() {
        final Map<Integer, List<Long>> slice = Map.of(0, offsets(7), 3, offsets(9));

        assertThat(RoundPlan.of(slice, 3)).isEqualTo(RoundPlan.of(Map.copyOf(slice), 3));
    }

    @Test
    void shouldKeepASmallSliceInOneRound() {
        final RoundPlan plan = RoundPlan.of(Map.of(0, offsets(2)), 16);

        assertThat(plan.size()).isEqualTo(1);
        assertThat(plan.lastOffsets(0)).isEqualTo(Map.of(0, 3L));
    }

    @Test
    void shouldTellARoundSettledOnlyOnceTheStageSettledEachOfItsRecords() {
        final RoundPlan plan = RoundPlan.of(Map.of(0, offsets(4)), 2);
        final GenerationGate gate = GenerationGate.paced();

        gate.settled(0, 1L, true);
        assertThat(plan.settled(0, gate)).isFalse();
        gate.settled(0, 3L, false);
        assertThat(plan.settled(0, gate)).isTrue();
        assertThat(plan.settled(1, gate)).isFalse();
        assertThat(plan.settledCount(gate)).isEqualTo(2);
    }

    @Test
    void shouldRefuseAnEmptyRound() {
        assertThatThrownBy(() -> RoundPlan.of(Map.of(0, offsets(3)), 0))
                .hasMessageContaining("at least 1");
    }
}
