package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.ops.embedded.TestClients;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the packaged {@code target/rwml.jar up} as a user would and stops it with SIGTERM. */
class RwmlUpIT {

    @TempDir Path tmp;

    @Test
    void shouldServeKafkaAndRegistryAndStopEverythingWhenTerminated() throws Exception {
        final Path jar = Path.of("target", "rwml.jar");
        assertThat(jar).as("run `mvn package` first").exists();
        final Process up =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-jar",
                                jar.toString(),
                                "up",
                                "--data-dir",
                                tmp.toString(),
                                "--run",
                                "cli-it",
                                "--partitions",
                                "2")
                        .redirectError(tmp.resolve("stderr.log").toFile())
                        .start();
        final List<String> lines = new CopyOnWriteArrayList<>();
        try {
            final BufferedReader stdout =
                    new BufferedReader(
                            new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = stdout.readLine()) != null && !line.equals(UpCommand.READY_LINE)) {
                lines.add(line);
            }
            assertThat(line)
                    .as(
                            "rwml up exited early; stderr: %s",
                            Files.readString(tmp.resolve("stderr.log")))
                    .isEqualTo(UpCommand.READY_LINE);
            final String bootstrap = value(lines, UpCommand.BOOTSTRAP_PREFIX);
            final String registry = value(lines, UpCommand.REGISTRY_PREFIX);
            final List<ProcessHandle> children = up.descendants().toList();
            assertThat(children).as("the registry child process").isNotEmpty();

            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                assertThat(admin.listTopics().names().get())
                        .contains("rwml.transitions")
                        .anyMatch(t -> t.startsWith("rwml.cli-it."));
            }
            assertRoundTrip(bootstrap);
            assertRegistryAnswers(registry);
            assertOtherCommandsFindTheCluster(bootstrap, registry);

            // SIGTERM through the handle: Process.destroy() would also close our end of stdout.
            assertThat(up.toHandle().destroy()).isTrue();
            final String rest =
                    new String(up.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            await().atMost(Duration.ofSeconds(60)).until(() -> !up.isAlive());
            assertThat(rest).contains("rwml up: stopped");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
            assertThat(tmp.resolve(ClusterOptions.CLUSTER_FILE))
                    .as("a stopped cluster leaves no addresses behind")
                    .doesNotExist();
        } finally {
            up.descendants().forEach(ProcessHandle::destroyForcibly);
            up.destroyForcibly();
        }
    }

    private void assertOtherCommandsFindTheCluster(final String bootstrap, final String registry) {
        assertThat(ClusterOptions.readClusterFile(tmp))
                .containsEntry(ClusterOptions.BOOTSTRAP_KEY, bootstrap)
                .containsEntry(ClusterOptions.REGISTRY_KEY, registry);
        final CliRunner.Result models =
                CliRunner.rwml("models", "list", "--run", "cli-it", "--data-dir", tmp.toString());
        assertThat(models.code()).isZero();
        assertThat(models.out()).contains("run cli-it has no versions yet");
    }

    private static String value(final List<String> lines, final String prefix) {
        return lines.stream()
                .filter(l -> l.startsWith(prefix))
                .map(l -> l.substring(prefix.length()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " line in " + lines));
    }

    private static void assertRoundTrip(final String bootstrap) throws Exception {
        try (KafkaProducer<String, String> producer =
                TestClients.producer(bootstrap, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("cli-it-probe", "k", "through rwml up")).get();
        }
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(
                        Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            assertThat(TestClients.readToEnd(consumer, "cli-it-probe"))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("through rwml up");
        }
    }

    private static void assertRegistryAnswers(final String registry) throws Exception {
        final HttpResponse<String> subjects =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(registry + "/subjects")).build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(subjects.statusCode()).isEqualTo(200);
        assertThat(subjects.body()).startsWith("[");
    }
}
