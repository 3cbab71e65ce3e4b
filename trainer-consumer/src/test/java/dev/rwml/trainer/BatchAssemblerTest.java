package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.RewardedGroup;
import dev.rwml.schemas.registry.RegistryUnreachableException;
import dev.rwml.schemas.registry.SchemaRegistryException;
import dev.rwml.schemas.registry.UnknownSchemaException;
import dev.rwml.schemas.serde.EventDecodingException;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class BatchAssemblerTest {

    private static final TopicPartition P0 = new TopicPartition("rwml.r.rewards", 0);

    private final TrainerConfig config =
            TrainerConfig.defaults("r")
                    .with(
                            Map.of(
                                    "groups.per.step",
                                    "2",
                                    "mini.batches",
                                    "1",
                                    "batch.timeout",
                                    "PT1S"));
    private final TrainingWindow window = new TrainingWindow();
    private final List<String> dropped = new ArrayList<>();
    private final List<Long> deadLettered = new ArrayList<>();
    private final BatchAssembler assembler =
            new BatchAssembler(
                    config,
                    window,
                    new BatchAssembler.Sink() {
                        @Override
                        public void dropped(
                                final BatchAssembler.Pending p, final GroupVerdict verdict) {
                            window.dropped(verdict);
                            dropped.add(p.group().getTransitionId() + ":" + verdict);
                        }

                        @Override
                        public void deadLetter(final BatchAssembler.Pending p) {
                            deadLettered.add(p.record().offset());
                        }
                    });

    private static BatchAssembler.Pending pending(final long offset, final RewardedGroup g) {
        return new BatchAssembler.Pending(
                new ConsumerRecord<>(P0.topic(), P0.partition(), offset, new byte[0], new byte[0]),
                g,
                null);
    }

    @Test
    void shouldNotCommitPastAGroupStillWaitingInTheBuffer() {
        window.start(Map.of(P0, 0L));
        assembler.add(pending(0, Groups.group("a", 0, 4, 64)), 0, 0);
        // A record that will be dropped arrives behind a group waiting for its batch.
        assembler.add(pending(1, Groups.notKept(Groups.group("b", 0, 4, 64))), 0, 0);
        assembler.dropLeading(0);
        assertThat(window.offsetsToCommit().get(P0).offset()).isZero();

        assembler.add(pending(2, Groups.group("c", 0, 4, 64)), 0, 0);
        assertThat(assembler.batchReady(0)).isTrue();
        final List<BatchAssembler.Pending> batch = assembler.take(0);
        assertThat(batch).extracting(p -> p.group().getTransitionId()).containsExactly("a", "c");
        assertThat(dropped).containsExactly("b:NOT_KEPT");
        assertThat(window.offsetsToCommit().get(P0).offset()).isEqualTo(3);
    }

    @Test
    void shouldReleaseAPartialBatchOnlyAfterTheBatchTimeout() {
        assembler.add(pending(0, Groups.group("a", 0, 4, 64)), 0, 0);
        assertThat(assembler.batchReady(Duration.ofMillis(999).toNanos())).isFalse();
        assertThat(assembler.batchReady(Duration.ofSeconds(1).toNanos())).isTrue();
    }

    /** A round trains the same batches whichever partition's records arrived first. */
    @Test
    void shouldTakeARoundInAnOrderFixedByTheGroupsNotByTheirArrival() {
        final List<String> ids = List.of("alfworld/e1/0", "alfworld/e1/1", "alfworld/e2/0", "x");
        for (int i = 0; i < ids.size(); i++) {
            assembler.add(pending(i, Groups.group(ids.get(i), 0, 4, 64)), 0, 0);
        }
        assembler.add(pending(4, Groups.notKept(Groups.group("skipped", 0, 4, 64))), 0, 0);
        final List<String> first = transitionIds(assembler.takeAll(0, 7));
        assertThat(first).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(dropped).containsExactly("skipped:NOT_KEPT");
        assertThat(assembler.size()).isZero();

        for (int i = ids.size() - 1; i >= 0; i--) {
            assembler.add(pending(10 + i, Groups.group(ids.get(i), 0, 4, 64)), 0, 0);
        }
        assertThat(transitionIds(assembler.takeAll(0, 7))).isEqualTo(first);

        final List<List<String>> orders = new ArrayList<>();
        for (long salt = 0; salt < 8; salt++) {
            ids.forEach(id -> assembler.add(pending(20, Groups.group(id, 0, 4, 64)), 0, 0));
            orders.add(transitionIds(assembler.takeAll(0, salt)));
        }
        assertThat(Set.copyOf(orders)).as("the salt reorders rounds").hasSizeGreaterThan(3);
    }

    private static List<String> transitionIds(final List<BatchAssembler.Pending> batch) {
        return batch.stream().map(p -> p.group().getTransitionId()).toList();
    }

    @Test
    void shouldDropAGroupThatBecameStaleWhileItWaited() {
        assembler.add(pending(0, Groups.group("old", 0, 4, 64)), 0, 0);
        assembler.add(pending(1, Groups.group("new", 5, 4, 64)), 5, 0);
        final List<BatchAssembler.Pending> batch = assembler.take(5);
        assertThat(batch).extracting(p -> p.group().getTransitionId()).containsExactly("new");
        assertThat(dropped).containsExactly("old:STALE");
        assertThat(window.counters().getDroppedStale()).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterUndecodableRecordsInOrder() {
        window.start(Map.of(P0, 0L));
        assembler.add(
                new BatchAssembler.Pending(
                        new ConsumerRecord<>(P0.topic(), 0, 0, new byte[0], new byte[] {9}),
                        null,
                        new IllegalArgumentException("bad")),
                0,
                0);
        assembler.dropLeading(0);
        assertThat(deadLettered).containsExactly(0L);
        assertThat(window.offsetsToCommit().get(P0).offset()).isEqualTo(1);
        assertThat(assembler.size()).isZero();
    }

    private static BatchAssembler.Pending failed(final long offset, final RuntimeException error) {
        return new BatchAssembler.Pending(
                new ConsumerRecord<>(
                        P0.topic(), P0.partition(), offset, new byte[0], new byte[] {0}),
                null,
                error);
    }

    @Test
    void shouldRefuseToDeadLetterARecordThatFailedBecauseTheRegistryIsOut() {
        window.start(Map.of(P0, 0L));
        final RuntimeException unreachable =
                new RegistryUnreachableException(
                        "http://registry:8081", 5, new ConnectException("refused"));
        assertThatThrownBy(() -> assembler.add(failed(0, unreachable), 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rwml.r.rewards-0@0")
                .hasMessageContaining("retry it");
        assertThatThrownBy(
                        () ->
                                assembler.add(
                                        failed(0, new SchemaRegistryException("HTTP 503", 503, -1)),
                                        0,
                                        0))
                .isInstanceOf(IllegalArgumentException.class);
        assembler.dropLeading(0);
        assertThat(deadLettered).isEmpty();
        assertThat(window.offsetsToCommit().get(P0).offset()).isZero();
    }

    @Test
    void shouldStillDeadLetterRecordsTheRegistryAnsweredForOrThatAreMalformed() {
        window.start(Map.of(P0, 0L));
        final UnknownSchemaException unknown =
                UnknownSchemaException.forId(99, "http://registry:8081", 404, 40403);
        assembler.add(
                failed(
                        0,
                        new EventDecodingException(
                                EventDecodingException.Reason.UNKNOWN_SCHEMA_ID,
                                P0.topic(),
                                unknown.getMessage(),
                                unknown)),
                0,
                0);
        // Avro's own IOException as the cause is still the bytes' fault, not a dropped connection.
        assembler.add(
                failed(
                        1,
                        new EventDecodingException(
                                EventDecodingException.Reason.UNDECODABLE_PAYLOAD,
                                P0.topic(),
                                "bad",
                                new IOException("bad"))),
                0,
                0);
        assembler.dropLeading(0);
        assertThat(deadLettered).containsExactly(0L, 1L);
        assertThat(window.offsetsToCommit().get(P0).offset()).isEqualTo(2);
    }

    @Test
    void shouldSplitABatchIntoNearlyEqualMiniBatches() {
        assertThat(TrainerLoop.split(List.of(1, 2, 3, 4, 5), 2))
                .containsExactly(List.of(1, 2), List.of(3, 4, 5));
        assertThat(TrainerLoop.split(List.of(1), 3)).containsExactly(List.of(1));
    }
}
