package dev.rwml.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

class ConnectionTest {

    private final Connection connection =
            Connection.from(
                    Map.of(
                            "bootstrap.servers", "broker:9093",
                            "security.protocol", "SASL_SSL",
                            "schema.registry.url", "https://registry:8081"));

    @Test
    void
            shouldGiveAReadCommittedConsumerTheSecuritySettingsAndLetExtraSettingsOverrideTheDefaults() {
        final Map<String, Object> config =
                connection.readCommittedConsumerConfig(
                        "reader",
                        Map.of("group.id", "g", "key.deserializer", StringDeserializer.class));

        assertThat(config)
                .containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("client.id", "reader")
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("enable.auto.commit", false)
                .containsEntry("group.id", "g")
                .containsEntry("key.deserializer", StringDeserializer.class)
                .containsEntry("value.deserializer", ByteArrayDeserializer.class)
                .doesNotContainKey("schema.registry.url");
    }

    @Test
    void shouldKeepAProducerIdempotentWhateverTheExtraSettingsSay() {
        final Map<String, Object> config =
                connection.idempotentProducerConfig(
                        "writer",
                        Map.of(
                                "enable.idempotence",
                                false,
                                "acks",
                                "1",
                                "linger.ms",
                                5,
                                "client.id",
                                "mine"));

        assertThat(config)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("enable.idempotence", true)
                .containsEntry("acks", "all")
                .containsEntry("linger.ms", 5)
                .containsEntry("client.id", "mine");
    }
}
