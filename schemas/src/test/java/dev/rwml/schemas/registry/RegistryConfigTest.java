package dev.rwml.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

class RegistryConfigTest {

    @Test
    void shouldReadConfluentKeysFromMap() throws Exception {
        final SSLContext tls = SSLContext.getDefault();
        final RegistryConfig config =
                RegistryConfig.fromMap(
                        Map.of(
                                RegistryConfig.URL, "http://a:8081/, http://b:8081",
                                RegistryConfig.REGISTRY_BASIC_AUTH_USER_INFO, "u:p",
                                RegistryConfig.SSL_CONTEXT, tls,
                                RegistryConfig.MAX_ATTEMPTS, "2",
                                RegistryConfig.RETRY_BACKOFF_MS, 10));
        assertThat(config.urls()).containsExactly("http://a:8081", "http://b:8081");
        assertThat(config.basicAuthUserInfo()).contains("u:p");
        assertThat(config.sslContext()).contains(tls);
        assertThat(config.maxAttempts()).isEqualTo(2);
        assertThat(config.initialBackoff()).isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void shouldNeverPrintThePassword() {
        assertThat(RegistryConfig.of("http://a").withBasicAuth("alice", "s3cret").toString())
                .contains("alice:***")
                .doesNotContain("s3cret");
    }

    private static RegistryConfig withUrl(final String key, final String value) {
        return RegistryConfig.fromMap(Map.of(RegistryConfig.URL, "http://a", key, value));
    }

    @Test
    void shouldExplainMissingOrMalformedSettings() {
        assertThatThrownBy(() -> RegistryConfig.fromMap(Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url");
        assertThatThrownBy(() -> RegistryConfig.of("localhost:8081"))
                .hasMessageContaining("must start with http://, https:// or mock://");
        assertThatThrownBy(() -> withUrl(RegistryConfig.BASIC_AUTH_USER_INFO, "nocolon"))
                .hasMessageContaining("user:password");
        assertThatThrownBy(
                        () ->
                                withUrl(
                                        RegistryConfig.SSL_TRUSTSTORE_LOCATION,
                                        "/no/such/truststore.p12"))
                .hasMessageContaining("TLS context");
        assertThatThrownBy(
                        () ->
                                RegistryConfig.of("http://a")
                                        .withRetries(
                                                2, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessage(
                        "schema.registry.retry.backoff.max.ms must be at least"
                                + " schema.registry.retry.backoff.ms (2000), was 1000");
    }

    @Test
    void shouldSelectMockRegistryForMockUrls() {
        assertThat(RegistryConfig.of("mock://x").isMock()).isTrue();
        assertThat(RegistryConfig.of("https://x").isMock()).isFalse();
    }
}
