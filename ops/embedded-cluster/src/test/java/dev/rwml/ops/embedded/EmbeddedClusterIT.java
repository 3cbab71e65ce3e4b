package dev.rwml.ops.embedded;

import static dev.rwml.ops.embedded.ClusterProbe.consumeAll;
import static dev.rwml.ops.embedded.ClusterProbe.get;
import static dev.rwml.ops.embedded.ClusterProbe.produce;
import static dev.rwml.ops.embedded.ClusterProbe.register;
import static dev.rwml.ops.embedded.ClusterProbe.schemaBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedClusterIT {

    /** Thread names the in-process broker and controller use (checked below, not assumed). */
    private static final Pattern KAFKA_THREAD =
            Pattern.compile(
                    "(?i).*(kafka|raft|broker-1|controller-1|data-plane|ExpirationReaper"
                            + "|quorum|LogDirFailureHandler|metadata|group-coordinator).*");

    @TempDir Path tmp;

    @Test
    void shouldServeTwoClustersOnDifferentPortsWhenStartedInOneJvm() throws Exception {
        final CompletableFuture<EmbeddedCluster> firstStart =
                CompletableFuture.supplyAsync(() -> EmbeddedCluster.start(tmp.resolve("a")));
        try (EmbeddedCluster second = EmbeddedCluster.start(tmp.resolve("b"));
                EmbeddedCluster first = firstStart.join()) {
            assertThat(first.bootstrapServers()).isNotEqualTo(second.bootstrapServers());
            assertThat(first.schemaRegistryUrl()).isNotEqualTo(second.schemaRegistryUrl());

            produce(first.bootstrapServers(), "only-in-first", "hello first");
            produce(second.bootstrapServers(), "only-in-second", "hello second");
            assertThat(consumeAll(first.bootstrapServers(), "only-in-first"))
                    .containsExactly("hello first");
            assertThat(consumeAll(second.bootstrapServers(), "only-in-second"))
                    .containsExactly("hello second");

            for (EmbeddedCluster c : List.of(first, second)) {
                final String body =
                        schemaBody("Greeting", "{\"name\":\"text\",\"type\":\"string\"}");
                final int id = register(c.schemaRegistryUrl(), "greetings-value", body);
                final var fetched = get(c.schemaRegistryUrl() + "/schemas/ids/" + id);
                assertThat(fetched.statusCode()).isEqualTo(200);
                assertThat(fetched.body()).contains("Greeting").contains("text");
            }
        }
    }

    @Test
    void shouldLeaveNothingRunningWhenClosedAndKeepTopicsAndSchemasForARestart() throws Exception {
        final Path dir = tmp.resolve("c");
        final Set<Long> before = threadIds();
        final ProcessHandle registry;
        final int id;
        final String bootstrap;
        try (EmbeddedCluster cluster = EmbeddedCluster.start(dir)) {
            bootstrap = cluster.bootstrapServers();
            produce(bootstrap, "kept", "survives a restart");
            id =
                    register(
                            cluster.schemaRegistryUrl(),
                            "kept-value",
                            schemaBody("Kept", "{\"name\":\"n\",\"type\":\"long\"}"));
            registry = ProcessHandle.of(cluster.registryPid()).orElseThrow();
            assertThat(newKafkaThreads(before))
                    .as("the pattern must recognise the running broker's threads")
                    .isNotEmpty();
            cluster.close();
            cluster.close();
        }
        assertThat(registry.isAlive()).isFalse();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(newKafkaThreads(before)).isEmpty());

        try (EmbeddedCluster again = EmbeddedCluster.start(dir)) {
            assertThat(again.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(consumeAll(again.bootstrapServers(), "kept"))
                    .containsExactly("survives a restart");
            assertThat(get(again.schemaRegistryUrl() + "/schemas/ids/" + id).body())
                    .contains("Kept");
            try (Admin admin =
                    Admin.create(
                            Map.of(
                                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    again.bootstrapServers()))) {
                assertThat(admin.listTopics().names().get()).contains("kept");
            }
        }
    }

    @Test
    void shouldStopRegistryWhenParentJvmIsKilled() throws Exception {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process parent =
                new ProcessBuilder(
                                java,
                                "-cp",
                                System.getProperty("java.class.path"),
                                ClusterHolder.class.getName(),
                                tmp.resolve("e").toString())
                        .redirectErrorStream(true)
                        .start();
        try {
            final long registryPid = readRegistryPid(parent);
            final ProcessHandle registry = ProcessHandle.of(registryPid).orElseThrow();
            assertThat(registry.isAlive()).isTrue();

            parent.destroyForcibly(); // SIGKILL: the parent runs no shutdown hook
            parent.waitFor();

            await().atMost(Duration.ofSeconds(30)).until(() -> !registry.isAlive());
        } finally {
            parent.destroyForcibly();
        }
    }

    private static long readRegistryPid(final Process parent) throws Exception {
        final BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(ClusterHolder.READY)) {
                return Long.parseLong(line.substring(ClusterHolder.READY.length()).trim());
            }
        }
        throw new AssertionError("The child JVM exited before its cluster was ready");
    }

    private static Set<Long> threadIds() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getId)
                .collect(Collectors.toSet());
    }

    private static List<String> newKafkaThreads(final Set<Long> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t.getId()) && t.isAlive())
                .map(Thread::getName)
                .filter(n -> KAFKA_THREAD.matcher(n).matches())
                .toList();
    }
}
