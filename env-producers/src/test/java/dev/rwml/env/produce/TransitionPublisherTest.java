package dev.rwml.env.produce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.runtime.settings.Connection;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class TransitionPublisherTest {

    private static final Connection SECURED =
            Connection.from(
                    Map.of(
                            "bootstrap.servers", "broker:9093",
                            "security.protocol", "SASL_SSL",
                            "sasl.mechanism", "PLAIN",
                            "ssl.truststore.location", "/etc/rwml/truststore.jks",
                            "schema.registry.url", "mock://publisher-test",
                            "basic.auth.user.info", "user:secret"));

    @Test
    void shouldGiveTheProducerTheConnectionsSecuritySettings() {
        final Map<String, Object> config =
                TransitionPublisher.producerConfig(KafkaSettings.of(SECURED), "run");

        assertThat(config)
                .containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.truststore.location", "/etc/rwml/truststore.jks")
                .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "rwml-env-run")
                .doesNotContainKey("basic.auth.user.info");
    }

    @Test
    void shouldKeepIdempotenceAndAcksAllOverTheOverrides() {
        final KafkaSettings settings =
                KafkaSettings.of(SECURED)
                        .withProducerSetting(ProducerConfig.ACKS_CONFIG, "1")
                        .withProducerSetting(ProducerConfig.LINGER_MS_CONFIG, 50);

        assertThat(TransitionPublisher.producerConfig(settings, "import"))
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 50)
                .containsEntry("security.protocol", "SASL_SSL");
    }

    @Test
    void shouldGiveTheTransitionsSerdeTheRegistrysAuthSettings() {
        assertThat(KafkaSettings.of(SECURED).registryConfig())
                .containsEntry("schema.registry.url", "mock://publisher-test")
                .containsEntry("basic.auth.user.info", "user:secret")
                .doesNotContainKey("security.protocol");
    }
}
