package dev.rwml.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HttpAccessTest {

    @Test
    void shouldRefuseAnAddressOtherMachinesReachWithoutAKey() {
        assertThatThrownBy(() -> new HttpAccess("0.0.0.0", Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lets other machines in")
                .hasMessageContaining("RWML_API_KEY");
        assertThatThrownBy(() -> new HttpAccess("0.0.0.0", Optional.of("  ")))
                .as("a blank key is no key")
                .hasMessageContaining("lets other machines in");
    }

    @Test
    void shouldListenOnThisMachineWithoutAKey() {
        assertThat(HttpAccess.loopback().host()).isEqualTo("127.0.0.1");
        assertThat(HttpAccess.loopback().refusal(null)).isEmpty();
        assertThat(new HttpAccess("::1", Optional.empty()).apiKey()).isEmpty();
    }

    @Test
    void shouldLetInOnlyTheBearerOfTheKey() {
        final HttpAccess access = new HttpAccess("0.0.0.0", Optional.of("s3cret"));

        assertThat(access.refusal("Bearer s3cret")).isEmpty();
        assertThat(access.refusal(null)).hasValueSatisfying(r -> assertThat(r).contains("needs"));
        assertThat(access.refusal("Bearer s3cre"))
                .hasValueSatisfying(r -> assertThat(r).contains("not this server's"));
        assertThat(access.refusal("s3cret")).isPresent();
        assertThat(access.refusal("Basic " + basic("anyone:s3cret")))
                .as("a browser's basic login, the key as password")
                .isEmpty();
        assertThat(access.refusal("Basic " + basic("s3cret:wrong"))).isPresent();
        assertThat(access.refusal("Basic not-base64!")).isPresent();
    }

    private static String basic(final String pair) {
        return java.util.Base64.getEncoder()
                .encodeToString(pair.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void shouldNeverShowTheKey() {
        assertThat(new HttpAccess("0.0.0.0", Optional.of("s3cret")).toString())
                .doesNotContain("s3cret")
                .contains("API key required");
    }

    @Test
    void shouldListenOnItsHostWithABoundOnReceivingARequest() throws Exception {
        final HttpServer server = HttpAccess.loopback().listen(0);
        try {
            assertThat(server.getAddress().getAddress().getHostAddress())
                    .isEqualTo(HttpAccess.LOOPBACK);
            assertThat(server.getAddress().getPort()).isPositive();
            assertThat(System.getProperty("sun.net.httpserver.maxReqTime"))
                    .as("set unless the JVM was given it")
                    .isEqualTo(Long.toString(HttpAccess.REQUEST_DEADLINE.toSeconds()));
            assertThat(System.getProperty("sun.net.httpserver.nodelay")).isEqualTo("true");
        } finally {
            server.stop(0);
        }
    }
}
