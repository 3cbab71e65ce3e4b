package dev.rwml.ops.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.runtime.settings.Connection;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ClusterChecksTest {

    @TempDir Path dir;

    @Test
    @Timeout(60)
    void shouldSayWhatToDoWhenTheBrokerDoesNotAnswer() throws Exception {
        final Connection nowhere = nowhere();
        final Finding finding =
                ClusterChecks.broker(nowhere, Duration.ofSeconds(2), "start it with ./rwml up");
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message())
                .isEqualTo(
                        nowhere.bootstrapServers()
                                + " did not answer within 2 s: start it with ./rwml up");
    }

    @Test
    @Timeout(60)
    void shouldSayWhatToDoWhenTheRegistryDoesNotAnswer() throws IOException {
        final Connection nowhere = nowhere();
        final Finding finding =
                ClusterChecks.registry(nowhere, Duration.ofSeconds(2), "start it with ./rwml up");
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message())
                .startsWith(nowhere.schemaRegistryUrl() + " did not answer")
                .endsWith("start it with ./rwml up");
    }

    @Test
    void shouldNameTheTruststoreThatDoesNotOpenWithItsPassword() throws Exception {
        final Path truststore = store("right");
        final Finding finding =
                ClusterChecks.security(
                        secure(
                                Map.of(
                                        "ssl.truststore.location", truststore.toString(),
                                        "ssl.truststore.password", "wrong",
                                        "ssl.truststore.type", "PKCS12")),
                        "client.properties");
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message())
                .contains("ssl.truststore.location " + truststore)
                .contains("does not open with ssl.truststore.password")
                .endsWith("fix it in client.properties");
    }

    @Test
    void shouldNameAMissingStoreAndAMissingLogin() {
        final Finding finding =
                ClusterChecks.security(
                        secure(
                                Map.of(
                                        "schema.registry.ssl.truststore.location",
                                        dir.resolve("gone.p12").toString())),
                        "client.properties");
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message())
                .contains("schema.registry.ssl.truststore.location")
                .contains("is missing")
                .contains("SASL_SSL needs sasl.jaas.config");
    }

    @Test
    void shouldAcceptStoresThatOpen() throws Exception {
        final Path truststore = store("right");
        final Finding finding =
                ClusterChecks.security(
                        secure(
                                Map.of(
                                        "ssl.truststore.location", truststore.toString(),
                                        "ssl.truststore.password", "right",
                                        "sasl.mechanism", "SCRAM-SHA-512",
                                        "sasl.jaas.config", "x required;")),
                        "client.properties");
        assertThat(finding.ok()).as(finding.message()).isTrue();
        assertThat(finding.message()).isEqualTo("SASL_SSL with SCRAM-SHA-512 (client.properties)");
    }

    private static Map<String, String> secure(final Map<String, String> more) {
        final Map<String, String> settings = new HashMap<>(more);
        settings.put("security.protocol", "SASL_SSL");
        return settings;
    }

    /** A port nothing listens on (it was free a moment ago). */
    private static Connection nowhere() throws IOException {
        final int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        return Connection.of("127.0.0.1:" + port, "http://127.0.0.1:" + port + "/apis/ccompat/v7");
    }

    private Path store(final String password) throws Exception {
        final KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        final Path file = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }
}
