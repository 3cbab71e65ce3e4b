package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.runtime.settings.Connection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * A running {@code rwml up --secure} names its client settings in its cluster file, and every
 * command in the same data directory connects with them without being told.
 */
class SecureClusterFileTest {

    @TempDir Path dir;
    private Path clientProperties;

    /** Any command's cluster options, as picocli fills them. */
    static final class Options {
        @Mixin ClusterOptions cluster;
    }

    @BeforeEach
    void runningSecureCluster() throws IOException {
        clientProperties = dir.resolve("secure").resolve("client.properties");
        Files.createDirectories(clientProperties.getParent());
        Files.writeString(
                clientProperties,
                """
                bootstrap.servers=127.0.0.1:9093
                security.protocol=SASL_SSL
                sasl.mechanism=SCRAM-SHA-512
                sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule \
                required username="rwml" password="p";
                ssl.truststore.location=/data/secure/truststore.p12
                schema.registry.url=https://127.0.0.1:8443/apis/ccompat/v7
                schema.registry.ssl.truststore.location=/data/secure/truststore.p12
                """);
        Files.writeString(
                dir.resolve(ClusterOptions.CLUSTER_FILE),
                "bootstrap.servers=127.0.0.1:9093\n"
                        + "schema.registry.url=https://127.0.0.1:8443/apis/ccompat/v7\n"
                        + ClusterOptions.CLIENT_CONFIG_KEY
                        + "="
                        + clientProperties
                        + "\n");
    }

    private Connection connect(final String... args) {
        final Options options = new Options();
        new CommandLine(options).parseArgs(args);
        return options.cluster.connection();
    }

    @Test
    void shouldUseTheClientSettingsOfTheRunningSecureClusterWithoutOptions() {
        final Connection connection = connect("--data-dir", dir.toString());

        assertThat(connection.bootstrapServers()).isEqualTo("127.0.0.1:9093");
        assertThat(connection.kafka())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat(connection.registry())
                .containsEntry(
                        "schema.registry.ssl.truststore.location", "/data/secure/truststore.p12");
    }

    @Test
    void shouldNotSendTheSecureClustersCredentialsToAnotherCluster() {
        final Connection connection =
                connect(
                        "--data-dir",
                        dir.toString(),
                        "--bootstrap-servers",
                        "elsewhere:9092",
                        "--schema-registry-url",
                        "http://elsewhere:8081");

        assertThat(connection.kafka()).doesNotContainKey("sasl.jaas.config");
        assertThat(connection.registry())
                .doesNotContainKey("schema.registry.ssl.truststore.location");
    }

    @Test
    void shouldSayHowToRecoverWhenTheNamedFileIsGone() throws IOException {
        Files.delete(clientProperties);

        assertThatThrownBy(() -> connect("--data-dir", dir.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(clientProperties.toString())
                .hasMessageContaining("restart `rwml up --secure`");
    }
}
