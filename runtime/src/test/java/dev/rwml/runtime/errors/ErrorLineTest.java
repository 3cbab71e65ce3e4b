package dev.rwml.runtime.errors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.runtime.settings.Connection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.NoSuchFileException;
import java.security.UnrecoverableKeyException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** The user's line for exception chains as Kafka, the JDK and the settings raise them. */
class ErrorLineTest {

    private static final String STORE = "/data/secure/truststore.p12";
    private static final Connection SSL =
            Connection.from(
                    Map.of(
                            "bootstrap.servers", "127.0.0.1:9093",
                            "schema.registry.url", "https://127.0.0.1:8443",
                            "security.protocol", "SSL",
                            "ssl.truststore.location", STORE,
                            "ssl.truststore.password", "wrong"));

    /** Kafka's chain for a truststore whose password is wrong, as a PKCS12 store raises it. */
    private static KafkaException wrongTruststorePassword() {
        final IOException incorrect =
                new IOException(
                        "keystore password was incorrect",
                        new UnrecoverableKeyException("failed to decrypt safe contents entry"));
        return new KafkaException(
                "Failed to create new KafkaAdminClient",
                new KafkaException(
                        "Failed to create new NetworkClient",
                        new KafkaException(
                                "Failed to load SSL keystore " + STORE + " of type PKCS12",
                                incorrect)));
    }

    @Test
    void shouldNameTheWrongTruststorePasswordAndWhereItIsSet() {
        final String line =
                ErrorLine.of(wrongTruststorePassword(), SSL, "/etc/rwml/client.properties");

        assertThat(line)
                .startsWith("Failed to create new KafkaAdminClient: ")
                .contains(
                        "the password of " + STORE + " is wrong (keystore password was incorrect)")
                .endsWith(
                        "fix ssl.truststore.password in --client-config /etc/rwml/client.properties");
    }

    @Test
    void shouldNameTheClientsOwnSettingWhenTheRegistryUsesTheSameStore() {
        final Map<String, String> both = new java.util.HashMap<>(SSL.asMap());
        both.put("schema.registry.ssl.truststore.location", STORE);
        both.put("schema.registry.ssl.truststore.password", "wrong");

        final String line =
                ErrorLine.of(wrongTruststorePassword(), Connection.from(both), "client.properties");

        assertThat(line)
                .endsWith("fix ssl.truststore.password in --client-config client.properties");
    }

    @Test
    void shouldKeepToOneLineWhenAMessageHasSeveral() {
        final String line =
                ErrorLine.of(
                        new IllegalArgumentException(
                                "config.json: config is not valid JSON: Unexpected character\n"
                                        + " at [Source: x; line: 1, column: 2]"));

        assertThat(line).doesNotContain("\n").startsWith("config.json: config is not valid JSON");
    }

    @Test
    void shouldNameAKeyThatItsPasswordCannotRead() {
        final KafkaException error =
                new KafkaException(
                        "Failed to load SSL keystore /k/server.p12 of type PKCS12",
                        new UnrecoverableKeyException("Get Key failed"));

        assertThat(ErrorLine.of(error, SSL, null))
                .contains("the key in /k/server.p12 cannot be read")
                .contains("fix ssl.key.password in a --client-config FILE");
    }

    @Test
    void shouldNameTheSettingThatNamesAMissingFile() {
        final KafkaException error =
                new KafkaException(
                        "Failed to load SSL keystore " + STORE + " of type PKCS12",
                        new NoSuchFileException(STORE));

        assertThat(ErrorLine.of(error, SSL, "c.properties"))
                .isEqualTo(
                        "Failed to load SSL keystore "
                                + STORE
                                + " of type PKCS12: no file "
                                + STORE
                                + " (ssl.truststore.location in --client-config c.properties);"
                                + " check the path");
    }

    @Test
    void shouldSkipWrappersThatOnlyRepeatTheirCause() {
        final BindException bind = new BindException("Address already in use");
        final Exception wrapped =
                new ExecutionException(new UncheckedIOException(bind.toString(), bind));

        assertThat(ErrorLine.of(wrapped))
                .isEqualTo(
                        "the port is in use (Address already in use); stop what holds it or"
                                + " choose another port (--port)");
    }

    @Test
    void shouldNotRepeatACauseTheMessageAlreadyQuotes() {
        final ConfigException bad =
                new ConfigException("broker.timeout", "soon", "expected an ISO-8601 duration");
        final IllegalArgumentException error =
                new IllegalArgumentException("filter setting: " + bad.getMessage(), bad);

        assertThat(ErrorLine.of(error)).isEqualTo(error.getMessage());
    }

    @Test
    void shouldSayWhatToCheckWhenKafkaDoesNotAnswer() {
        final IllegalStateException error =
                new IllegalStateException(
                        "cannot list topics on 127.0.0.1:9",
                        new ExecutionException(
                                new TimeoutException("Timed out waiting for a node assignment")));

        assertThat(ErrorLine.of(error))
                .startsWith("cannot list topics on 127.0.0.1:9: no answer in time")
                .contains("--bootstrap-servers");
    }

    @Test
    void shouldGiveTheMessageAloneWhenNoCauseIsKnown() {
        final IllegalStateException error =
                new IllegalStateException("run x has no version yet", new RuntimeException("gone"));

        assertThat(ErrorLine.of(error)).isEqualTo("run x has no version yet: gone");
        assertThat(ErrorLine.of(new IllegalStateException("plain"))).isEqualTo("plain");
    }

    @Test
    void shouldStopAtACycleOfCauses() {
        final Exception first = new Exception("first");
        final Exception second = new Exception("second", first);
        first.initCause(second);

        assertThat(ErrorLine.of(first)).isEqualTo("first: second");
    }
}
