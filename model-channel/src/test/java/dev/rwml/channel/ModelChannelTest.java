package dev.rwml.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.runtime.settings.Connection;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelChannelTest {

    @Test
    void shouldOpenTheRunsChannelWithTheConnectionsSecuritySettings() {
        final Connection connection =
                Connection.from(
                        Map.of(
                                "bootstrap.servers", "broker:9093",
                                "security.protocol", "SSL",
                                "ssl.truststore.location", "/etc/rwml/truststore.jks",
                                "schema.registry.url", "mock://model-commands-test",
                                "basic.auth.user.info", "user:secret"));

        try (ModelChannel channel = ModelChannel.of(connection, "r1")) {
            assertThat(channel.consumerConfig("rwml-models-list"))
                    .containsEntry("bootstrap.servers", "broker:9093")
                    .containsEntry("security.protocol", "SSL")
                    .containsEntry("ssl.truststore.location", "/etc/rwml/truststore.jks");
            assertThat(channel.serdeConfig()).containsEntry("basic.auth.user.info", "user:secret");
            assertThat(channel.modelsTopic()).isEqualTo("rwml.r1.models");
        }
    }
}
