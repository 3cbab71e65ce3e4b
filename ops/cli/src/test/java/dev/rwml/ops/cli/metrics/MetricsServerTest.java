package dev.rwml.ops.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.runtime.settings.HttpAccess;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MetricsServerTest {

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(final java.net.URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeStageMetersRegisteredOnTheGlobalRegistryInPrometheusFormat() throws Exception {
        final CompositeMeterRegistry global = new CompositeMeterRegistry();
        try (MetricsOptions.Exposure exposure =
                MetricsOptions.expose(HttpAccess.loopback(), 0, global)) {
            // As a stage does: meters on the composite, after the endpoint started.
            global.counter("rwml.prediction.groups", "run", "exp1").increment(3);
            global.timer("rwml.trainer.step.latency", "run", "exp1")
                    .record(java.time.Duration.ofMillis(250));

            final HttpResponse<String> scrape = get(exposure.uri());

            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
            assertThat(scrape.body())
                    .contains("rwml_prediction_groups_total{run=\"exp1\"} 3.0")
                    .contains("rwml_trainer_step_latency_seconds_count{run=\"exp1\"} 1")
                    .contains("jvm_memory_used_bytes");
        }
    }

    @Test
    void shouldDetachFromTheGlobalRegistryWhenClosed() {
        final CompositeMeterRegistry global = new CompositeMeterRegistry();
        try (MetricsOptions.Exposure exposure =
                MetricsOptions.expose(HttpAccess.loopback(), 0, global)) {
            assertThat(global.getRegistries()).hasSize(1);
        }
        assertThat(global.getRegistries()).isEmpty();
    }

    @Test
    void shouldListenOnThisMachineOnlyByDefault() {
        final MetricsOptions options = new MetricsOptions();
        new CommandLine(new Holder(options)).parseArgs("--metrics-port", "0");

        try (MetricsOptions.Exposure exposure = options.expose()) {
            assertThat(exposure.server().address().getAddress().isLoopbackAddress()).isTrue();
        }
    }

    @Test
    void shouldRefuseToListenElsewhereWithoutAKey() {
        final MetricsOptions options = new MetricsOptions();
        new CommandLine(new Holder(options))
                .parseArgs("--metrics-port", "0", "--metrics-host", "0.0.0.0");

        assertThatThrownBy(options::expose).hasMessageContaining("lets other machines in");
    }

    @Test
    void shouldAskEveryScrapeForTheKeyWhenOneIsGiven() throws Exception {
        try (MetricsOptions.Exposure exposure =
                MetricsOptions.expose(
                        new HttpAccess("127.0.0.1", Optional.of("s3cret")),
                        0,
                        new CompositeMeterRegistry())) {
            final HttpResponse<String> unkeyed = get(exposure.uri());
            assertThat(unkeyed.statusCode()).isEqualTo(401);
            assertThat(unkeyed.headers().firstValue("WWW-Authenticate"))
                    .as("a browser asks for the key")
                    .hasValue("Basic realm=\"rwml\"");
            final HttpResponse<String> keyed =
                    http.send(
                            HttpRequest.newBuilder(exposure.uri())
                                    .header("Authorization", "Bearer s3cret")
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(keyed.statusCode()).isEqualTo(200);
            assertThat(keyed.body()).contains("jvm_memory_used_bytes");
        }
    }

    @Test
    void shouldAnswerNotFoundOutsideTheMetricsPath() throws Exception {
        try (MetricsOptions.Exposure exposure =
                MetricsOptions.expose(HttpAccess.loopback(), 0, new CompositeMeterRegistry())) {
            assertThat(get(exposure.server().uri("/")).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void shouldServeNothingWithoutMetricsPort() {
        final MetricsOptions options = new MetricsOptions();
        new CommandLine(new Holder(options)).parseArgs();

        try (MetricsOptions.Exposure exposure = options.expose()) {
            assertThat(exposure.server()).isNull();
        }
    }

    @Test
    void shouldParseMetricsPortAsAMixin() {
        final MetricsOptions options = new MetricsOptions();
        new CommandLine(new Holder(options)).parseArgs("--metrics-port", "9404");

        assertThat(options.port()).isEqualTo(9404);
    }

    @CommandLine.Command(name = "stage")
    static final class Holder {
        @CommandLine.Mixin final MetricsOptions metrics;

        Holder(final MetricsOptions metrics) {
            this.metrics = metrics;
        }
    }
}
