package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.rwml.events.OffsetRange;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class TrainingWindowTest {

    private static final TopicPartition P0 = new TopicPartition("rwml.r.rewards", 0);
    private static final TopicPartition P1 = new TopicPartition("rwml.r.rewards", 1);

    private static TrainingWindow started(final Map<TopicPartition, Long> positions) {
        final TrainingWindow w = new TrainingWindow();
        w.start(positions);
        return w;
    }

    /** The record at {@code offset} was processed and dropped for {@code verdict}. */
    private static void drop(
            final TrainingWindow w,
            final TopicPartition tp,
            final long offset,
            final GroupVerdict verdict) {
        w.processed(tp, offset);
        w.dropped(verdict);
    }

    private static void assertLineage(final TrainingWindow window, final Tuple... ranges) {
        assertThat(window.lineage())
                .extracting(
                        OffsetRange::getPartition,
                        OffsetRange::getFromOffset,
                        OffsetRange::getUntilOffset)
                .containsExactly(ranges);
    }

    @Test
    void shouldRecordLineageFromTheResumePositionAndContinueWhereTheLastVersionEnded() {
        final TrainingWindow w = started(Map.of(P0, 10L, P1, 0L));
        w.processed(P0, 10);
        w.processed(P0, 11);
        assertLineage(w, tuple(0, 10L, 12L));
        assertThat(w.offsetsToCommit().get(P0).offset()).isEqualTo(12);
        assertThat(w.offsetsToCommit().get(P1).offset()).isZero();

        w.reset();
        w.processed(P0, 12);
        w.processed(P1, 0);
        assertLineage(w, tuple(0, 12L, 13L), tuple(1, 0L, 1L));
    }

    @Test
    void shouldCoverTrailingMarkerOffsetsWhenAdvancedToTheConsumerPosition() {
        final TrainingWindow w = started(Map.of(P0, 0L, P1, 5L));
        w.processed(P0, 0);
        w.processed(P0, 1);
        // Offset 2 is a transaction marker: the consumer's position is 3 though no record had it.
        w.advanceTo(P0, 3);
        w.advanceTo(P1, 5);
        assertLineage(w, tuple(0, 0L, 3L));
        assertThat(w.offsetsToCommit().get(P0).offset()).isEqualTo(3);
    }

    @Test
    void shouldAverageStepMetricsAndCountStalenessPerVersionGap() {
        final TrainingWindow w = new TrainingWindow();
        w.step(new StepStats(1.0, 0.1, 0.0, 2.0, 10));
        w.step(new StepStats(3.0, 0.3, 0.5, 4.0, 30));
        w.trained(Groups.group("a", 0, 4, 64), 0);
        w.trained(Groups.group("b", 0, 4, 64), 2);
        w.trained(Groups.group("c", 0, 4, 64), 2);
        assertThat(w.metrics()).containsEntry("loss", 2.0).containsEntry("gradNorm", 3.0);
        assertThat(w.metrics().get("kl")).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(w.stalenessHistogram()).containsEntry("0", 1L).containsEntry("2", 2L);
        assertThat(w.counters().getTokens()).isEqualTo(40);
        assertThat(w.trainedIds()).containsExactly("a", "b", "c");
    }

    @Test
    void shouldCommitSkippedRecordsWithoutAVersionAndKeepThemInTheNextVersionsLineage() {
        final TrainingWindow w = started(Map.of(P0, 10L, P1, 0L));
        drop(w, P0, 10, GroupVerdict.ZERO_ADVANTAGE);
        drop(w, P0, 11, GroupVerdict.NOT_KEPT);
        assertThat(w.uncommitted()).isEqualTo(2);

        final Map<TopicPartition, OffsetAndMetadata> offsets = w.offsetsToCommitWithoutVersion(3);
        assertThat(offsets.get(P0).offset()).isEqualTo(12);
        assertThat(offsets.get(P0).metadata())
                .isEqualTo(
                        "rwml-trainer/1 parent=3 lineageFrom=10 droppedStale=0"
                                + " skippedZeroAdvantage=1 skippedNotKept=1");
        assertThat(offsets.get(P1).offset()).isZero();
        w.committedWithoutVersion();
        assertThat(w.uncommitted()).isZero();

        w.processed(P0, 12);
        w.step(new StepStats(1.0, 0.1, 0.0, 2.0, 10));
        assertLineage(w, tuple(0, 10L, 13L));
        assertThat(w.counters().getSkippedZeroAdvantage()).isEqualTo(1);
        assertThat(w.metrics()).containsEntry("skippedNotKept", 1.0);
        assertThat(w.offsetsToCommit().get(P0).metadata()).isEmpty();
    }

    @Test
    void shouldRefuseToCommitTrainedGroupsWithoutTheirVersion() {
        final TrainingWindow w = started(Map.of(P0, 0L));
        w.processed(P0, 0);
        w.step(new StepStats(1.0, 0.1, 0.0, 2.0, 10));
        assertThatThrownBy(() -> w.offsetsToCommitWithoutVersion(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only with the version");
    }

    @Test
    void shouldResumeTheLineageAndSkipCountersOfAnOffsetsOnlyCommitAfterARestart() {
        final TrainingWindow before = started(Map.of(P0, 4L, P1, 7L));
        drop(before, P0, 4, GroupVerdict.STALE);
        drop(before, P0, 5, GroupVerdict.ZERO_ADVANTAGE);
        final Map<TopicPartition, String> metadata = new HashMap<>();
        before.offsetsToCommitWithoutVersion(2).forEach((tp, o) -> metadata.put(tp, o.metadata()));

        // The restarted trainer resumes at the committed offsets, P0 at 6.
        final TrainingWindow after = started(Map.of(P0, 6L, P1, 7L));
        assertThat(after.restore(metadata, 2)).isTrue();
        after.processed(P1, 7);
        assertLineage(after, tuple(0, 4L, 6L), tuple(1, 7L, 8L));
        assertThat(after.counters().getDroppedStale()).isEqualTo(1);
        assertThat(after.counters().getSkippedZeroAdvantage()).isEqualTo(1);
    }

    @Test
    void shouldIgnoreOffsetMetadataLeftOnTopOfAnotherVersionOrByAVersionCommit() {
        final TrainingWindow w = started(Map.of(P0, 6L, P1, 3L));
        final Map<TopicPartition, String> metadata =
                Map.of(
                        P0,
                        "rwml-trainer/1 parent=1 lineageFrom=4 droppedStale=5"
                                + " skippedZeroAdvantage=0 skippedNotKept=0",
                        P1,
                        "");
        assertThat(w.restore(metadata, 2)).isFalse();
        assertThat(w.restore(Map.of(P0, "rwml-trainer/1 parent=x"), 2)).isFalse();
        assertThat(w.lineage()).isEmpty();
        assertThat(w.counters().getDroppedStale()).isZero();
    }
}
