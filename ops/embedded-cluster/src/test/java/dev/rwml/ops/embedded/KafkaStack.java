package dev.rwml.ops.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that gives a test class a Kafka broker and a Confluent-compatible schema
 * registry.
 *
 * <pre>{@code
 * @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();
 * ... KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()
 * }</pre>
 *
 * <p>{@link #embedded()} shares one embedded cluster among all test classes of a JVM (started on
 * first use, stopped when the JVM exits), so tests must use their own uniquely named topics and
 * subjects. {@link #embeddedFresh()} starts a cluster for one test class and stops it after. {@link
 * #testcontainers()} runs Kafka and Apicurio Registry in Docker containers; it needs {@code
 * org.testcontainers:testcontainers-kafka} on the test classpath and a Docker engine.
 */
public final class KafkaStack implements BeforeAllCallback, AfterAllCallback {

    /** What a stack runs on; started at most once, stopped by {@link #close()}. */
    interface Backend extends AutoCloseable {
        String bootstrapServers();

        String schemaRegistryUrl();

        @Override
        void close();
    }

    private enum Kind {
        SHARED,
        FRESH,
        CONTAINERS
    }

    private final Kind kind;
    private Backend backend;

    private KafkaStack(final Kind kind) {
        this.kind = kind;
    }

    /** The JVM-wide shared embedded cluster. */
    public static KafkaStack embedded() {
        return new KafkaStack(Kind.SHARED);
    }

    /** An embedded cluster of this test class's own, stopped after its last test. */
    public static KafkaStack embeddedFresh() {
        return new KafkaStack(Kind.FRESH);
    }

    /**
     * Kafka ({@code apache/kafka}) and Apicurio Registry in containers, stopped after the class.
     */
    public static KafkaStack testcontainers() {
        return new KafkaStack(Kind.CONTAINERS);
    }

    @Override
    public void beforeAll(final ExtensionContext context) {
        backend();
    }

    @Override
    public synchronized void afterAll(final ExtensionContext context) {
        if (kind != Kind.SHARED && backend != null) {
            backend.close();
            backend = null;
        }
    }

    /** Kafka bootstrap servers; starts the stack if no test callback did yet. */
    public String bootstrapServers() {
        return backend().bootstrapServers();
    }

    /** The Confluent-compatible registry base URL, ending in {@code /apis/ccompat/v7}. */
    public String schemaRegistryUrl() {
        return backend().schemaRegistryUrl();
    }

    /** An admin client of the stack's broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    /** The end offset of each partition of {@code topic}. */
    public Map<TopicPartition, Long> endOffsets(final String topic)
            throws ExecutionException, InterruptedException {
        try (Admin admin = admin()) {
            final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .forEach(
                            p ->
                                    latest.put(
                                            new TopicPartition(topic, p.partition()),
                                            OffsetSpec.latest()));
            final Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest)
                    .all()
                    .get()
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            return ends;
        }
    }

    private synchronized Backend backend() {
        if (backend == null) {
            backend =
                    switch (kind) {
                        case SHARED -> shared();
                        case FRESH -> temporaryCluster("fresh");
                        case CONTAINERS -> containers();
                    };
        }
        return backend;
    }

    private static Backend containers() {
        try {
            return new ContainerBackend();
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException(
                    "KafkaStack.testcontainers() needs org.testcontainers:testcontainers-kafka as a"
                            + " test dependency",
                    e);
        }
    }

    private static Backend sharedBackend;
    private static RuntimeException sharedFailure;

    /** Starts the JVM-wide cluster on first use; a failure is remembered, not retried per class. */
    private static synchronized Backend shared() {
        if (sharedFailure != null) {
            throw new IllegalStateException(
                    "The shared embedded Kafka cluster failed to start earlier in this JVM",
                    sharedFailure);
        }
        if (sharedBackend == null) {
            try {
                final Backend backend = temporaryCluster("shared");
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(backend::close, "rwml-shared-stack-shutdown"));
                sharedBackend = backend;
            } catch (RuntimeException e) {
                sharedFailure = e;
                throw e;
            }
        }
        return sharedBackend;
    }

    /** A cluster in a new temporary directory that is deleted when the cluster is closed. */
    private static Backend temporaryCluster(final String purpose) {
        final Path dir;
        try {
            dir = Files.createTempDirectory("rwml-kafka-" + purpose + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final EmbeddedCluster cluster = EmbeddedCluster.start(dir);
        return new Backend() {
            @Override
            public String bootstrapServers() {
                return cluster.bootstrapServers();
            }

            @Override
            public String schemaRegistryUrl() {
                return cluster.schemaRegistryUrl();
            }

            @Override
            public void close() {
                cluster.close();
                deleteQuietly(dir);
            }
        };
    }

    private static void deleteQuietly(final Path dir) {
        try {
            Directories.deleteRecursively(dir);
        } catch (IOException e) {
            // Only temporary test data is left behind.
        }
    }
}
