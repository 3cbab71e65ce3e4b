package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

class BufferedRecordTest {

    private final Serde<BufferedRecord> serde = BufferedRecord.serde();

    @Test
    void shouldRoundTripEveryFieldThroughTheStoreSerde() {
        final BufferedRecord record =
                new BufferedRecord(
                        "alfworld/e1/0".getBytes(StandardCharsets.UTF_8),
                        new byte[] {0, 0, 0, 0, 7, 42},
                        1234L,
                        "rwml.transitions",
                        3,
                        99L,
                        List.of(
                                new RecordHeader("trace", new byte[] {1, 2}),
                                new RecordHeader("empty", null)));

        final BufferedRecord back =
                serde.deserializer()
                        .deserialize(
                                "changelog", serde.serializer().serialize("changelog", record));

        assertThat(back.key()).isEqualTo(record.key());
        assertThat(back.value()).isEqualTo(record.value());
        assertThat(back.timestamp()).isEqualTo(1234L);
        assertThat(back.topic()).isEqualTo("rwml.transitions");
        assertThat(back.partition()).isEqualTo(3);
        assertThat(back.offset()).isEqualTo(99L);
        assertThat(back.kafkaHeaders().lastHeader("trace").value()).containsExactly(1, 2);
        assertThat(back.kafkaHeaders().lastHeader("empty").value()).isNull();
    }

    @Test
    void shouldKeepANullKeyAndRefuseAnUnknownFormat() {
        final BufferedRecord keyless =
                new BufferedRecord(null, new byte[] {1}, 0L, "t", 0, 0L, List.of());
        final byte[] bytes = serde.serializer().serialize("c", keyless);

        assertThat(serde.deserializer().deserialize("c", bytes).key()).isNull();
        bytes[0] = 9;
        assertThatThrownBy(() -> serde.deserializer().deserialize("c", bytes))
                .hasMessageContaining("format 9");
    }
}
