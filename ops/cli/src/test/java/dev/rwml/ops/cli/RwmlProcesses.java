package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.ModelVersion;
import dev.rwml.ops.embedded.Directories;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs {@code ./rwml} commands as child processes, as a user starts them, for the tests that check
 * the stages each in its own process: one work directory under {@code target/<name>/} per test (it
 * stays after the test for diagnosis), the children's output in {@code <child>.out} and {@code
 * <child>.err}, whose tails assertion messages show. Registered as an extension of a test class, it
 * makes the work directory afresh before each test and kills every child still running after it;
 * registered on a static field, it does both once for the class instead, so that one scenario run
 * before all tests can be checked by each of them.
 */
final class RwmlProcesses
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

    /** Two slow cores also run the build: starting the broker and registry takes a while. */
    static final Duration CLUSTER_START = Duration.ofMinutes(2);

    /** The longest a command that ends by itself ({@code env run}, {@code model init}) may take. */
    static final Duration COMMAND = Duration.ofMinutes(2);

    private static final int TAIL_CHARS = 6_000;

    private final List<Child> children = new ArrayList<>();
    private final String name;

    /** Set when registered on a static field: one work directory and one cleanup for the class. */
    private boolean perClass;

    private Path root;
    private Path work;
    private Path data;

    /** A child process, the files its output goes to, and its log file once it writes one. */
    record Child(String name, Process process, Path out, Path err, Path log) {

        /** The tails of its stdout, stderr and log, for assertion messages. */
        String tails() {
            return "\n--- "
                    + name
                    + " stdout ---\n"
                    + tail(out)
                    + "\n--- "
                    + name
                    + " stderr ---\n"
                    + tail(err)
                    + (Files.exists(log) ? "\n--- " + log + " ---\n" + tail(log) : "");
        }
    }

    /** The addresses a running {@code rwml up} wrote to its cluster file. */
    record Cluster(Child up, String bootstrap, String registry) {}

    /** Children that run in the work directory {@code target/<name>/}. */
    RwmlProcesses(final String name) {
        this.name = name;
    }

    /** Only a static field's extension is called here: the class's tests share its children. */
    @Override
    public void beforeAll(final ExtensionContext context) throws IOException {
        perClass = true;
        prepare();
    }

    /** A fresh work directory for each test, unless the class shares one. */
    @Override
    public void beforeEach(final ExtensionContext context) throws IOException {
        if (!perClass) {
            prepare();
        }
    }

    /** A fresh work directory {@code target/<name>/} with an empty data directory. */
    private void prepare() throws IOException {
        root = repositoryRoot();
        assertThat(root.resolve("ops/cli/target/rwml.jar"))
                .as("the packaged command (mvn package builds it before integration tests)")
                .exists();
        work = Path.of("target", name).toAbsolutePath();
        Directories.deleteRecursively(work);
        data = work.resolve("data");
        Files.createDirectories(data);
    }

    /** The work directory: the children's working directory and where their output goes. */
    Path work() {
        return work;
    }

    /** The data directory every command gets as {@code --data-dir}. */
    Path data() {
        return data;
    }

    /** Starts {@code rwml up <args>} and waits until it has written the cluster's addresses. */
    Cluster up(final String args) throws IOException {
        final Child up = start("up", "up " + args);
        final Path clusterFile = data.resolve(ClusterOptions.CLUSTER_FILE);
        await("rwml up writes " + clusterFile)
                .atMost(CLUSTER_START)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> running(up) && Files.exists(clusterFile));
        final Properties cluster = new Properties();
        try (InputStream in = Files.newInputStream(clusterFile)) {
            cluster.load(in);
        }
        return new Cluster(
                up,
                cluster.getProperty(ClusterOptions.BOOTSTRAP_KEY),
                cluster.getProperty(ClusterOptions.REGISTRY_KEY));
    }

    /**
     * Starts {@code ./rwml <commandLine> <more> --data-dir <data>}: the command line is split at
     * spaces, {@code more} (paths, values with spaces) is passed as given.
     */
    Child start(final String name, final String commandLine, final String... more)
            throws IOException {
        final List<String> args = new ArrayList<>(List.of(commandLine.split(" ")));
        args.addAll(List.of(more));
        args.add("--data-dir");
        args.add(data.toString());
        return launch(name, args);
    }

    /**
     * {@link #start}, with {@code javaOptions} in {@code JAVA_OPTS}, as a user adds JVM options to
     * one command.
     */
    Child startWithJavaOptions(
            final String javaOptions,
            final String name,
            final String commandLine,
            final String... more)
            throws IOException {
        final List<String> args = new ArrayList<>(List.of(commandLine.split(" ")));
        args.addAll(List.of(more));
        args.add("--data-dir");
        args.add(data.toString());
        return launch(name, args, javaOptions);
    }

    /** Starts {@code ./rwml <args>} exactly as given (no {@code --data-dir} added). */
    Child launch(final String name, final List<String> args) throws IOException {
        return launch(name, args, null);
    }

    private Child launch(final String name, final List<String> args, final String javaOptions)
            throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(root.resolve("rwml").toString());
        command.addAll(args);
        final ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(work.toFile())
                        .redirectOutput(work.resolve(name + ".out").toFile())
                        .redirectError(work.resolve(name + ".err").toFile());
        // The JVM of this test, and none of a developer's RWML_* settings.
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().keySet().removeIf(key -> key.startsWith("RWML_"));
        if (javaOptions != null) {
            builder.environment().put("JAVA_OPTS", javaOptions);
        }
        final Child child =
                new Child(
                        name,
                        builder.start(),
                        work.resolve(name + ".out"),
                        work.resolve(name + ".err"),
                        // Where the command writes its library logs (it says so on stderr).
                        data.resolve("logs").resolve(args.get(0) + ".log"));
        children.add(child);
        return child;
    }

    /**
     * Publishes {@code episodes} ALFWorld episodes ({@code env run}, seed 1) and initialises
     * version 0 of {@code run} on them ({@code model init}, the tiny model, 150 steps): the first
     * two steps of the walkthrough in docs/operations.md, at test size.
     */
    void initTinyModel(final String run, final int episodes) throws Exception {
        runToEnd(
                "env-pretrain",
                "env run --env alfworld --agents 2 --episodes " + episodes + " --seed 1");
        runToEnd("model-init", "model init --run " + run + " --size tiny --steps 150");
    }

    /** Runs a command that ends by itself and expects exit 0 within {@link #COMMAND}. */
    Child runToEnd(final String name, final String commandLine) throws Exception {
        final Child child = start(name, commandLine);
        assertExits(child, COMMAND, 0);
        return child;
    }

    /** Expects {@code child} to exit with {@code code} within {@code within}. */
    static void assertExits(final Child child, final Duration within, final int code)
            throws InterruptedException {
        assertExited(awaitExit(child, within), code);
    }

    /** Whether a child ended within the time it was given, for a check made later. */
    record Exit(Child child, Duration within, boolean ended) {}

    /** Waits up to {@code within} for {@code child} to end; how it ended is for the check. */
    static Exit awaitExit(final Child child, final Duration within) throws InterruptedException {
        return new Exit(
                child, within, child.process().waitFor(within.toSeconds(), TimeUnit.SECONDS));
    }

    /** Expects the child to have ended within its time, with {@code code}. */
    static void assertExited(final Exit exit, final int code) {
        final Child child = exit.child();
        assertThat(exit.ended())
                .as("rwml %s ended within %s%s", child.name(), exit.within(), child.tails())
                .isTrue();
        assertThat(child.process().exitValue())
                .as("exit code of rwml %s%s", child.name(), child.tails())
                .isEqualTo(code);
    }

    /** True while the children run; a child that died fails the wait at once, with its output. */
    static boolean running(final Child... children) {
        return running(List.of(children));
    }

    /** True while the children run; a child that died fails the wait at once, with its output. */
    static boolean running(final List<Child> children) {
        for (final Child child : children) {
            if (!child.process().isAlive()) {
                // Not an AssertionError: untilAsserted would retry it until the time is up.
                throw new IllegalStateException(
                        "rwml "
                                + child.name()
                                + " exited with "
                                + child.process().exitValue()
                                + child.tails());
            }
        }
        return true;
    }

    /**
     * Waits until version {@code version} of {@code run} is committed on the run's models topic and
     * {@code predict}'s log says it loaded it, every stage running all along; its manifest.
     */
    static ModelVersion awaitServedVersion(
            final Cluster cluster,
            final String run,
            final long version,
            final Child predict,
            final List<Child> stages,
            final Duration within) {
        final RunTopics topics = TopicCatalog.defaults().run(run);
        final var registry = EventSerdes.registryConfig(cluster.registry());
        final ModelVersion[] found = new ModelVersion[1];
        await("version " + version + " of run " + run + ", served")
                .atMost(within)
                .pollInterval(Duration.ofSeconds(3))
                .untilAsserted(
                        () -> {
                            running(stages);
                            found[0] =
                                    readCommitted(
                                                    cluster.bootstrap(),
                                                    topics.models().name(),
                                                    topics.models()
                                                            .valueSerde(registry)
                                                            .deserializer())
                                            .stream()
                                            .filter(m -> m.getVersion() == version)
                                            .findFirst()
                                            .orElse(null);
                            assertThat(found[0])
                                    .as(
                                            "version %d%s",
                                            version,
                                            stages.stream()
                                                    .map(Child::tails)
                                                    .collect(Collectors.joining()))
                                    .isNotNull();
                            assertThat(Files.readString(predict.log()))
                                    .as("the prediction stage's log")
                                    .contains("loaded version " + version + " of run " + run);
                        });
        return found[0];
    }

    /** Stops the children with SIGTERM, as a user's Ctrl-C would, and waits for them. */
    static void stop(final List<Child> children) throws InterruptedException {
        for (final Child child : children) {
            child.process().destroy();
        }
        for (final Child child : children) {
            child.process().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** After each test, unless the class shares its children. */
    @Override
    public void afterEach(final ExtensionContext context) {
        if (!perClass) {
            killChildren();
        }
    }

    /** After the last test of a class that shares its children. */
    @Override
    public void afterAll(final ExtensionContext context) {
        if (perClass) {
            killChildren();
        }
    }

    /** Kills every child still running (and what it started) and waits for them. */
    private void killChildren() {
        for (final Child child : children) {
            child.process().descendants().forEach(ProcessHandle::destroyForcibly);
            child.process().destroyForcibly();
        }
        for (final Child child : children) {
            try {
                child.process().waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ---- Kafka, read as the stages read it ----

    /** The committed records of {@code topic}, from its start. */
    static long committedRecords(final String bootstrap, final String topic) {
        return readCommitted(bootstrap, topic, new ByteArrayDeserializer()).size();
    }

    /** The committed values of {@code topic}, from its start up to its end offsets now. */
    static <V> List<V> readCommitted(
            final String bootstrap, final String topic, final Deserializer<V> values) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            return values(TestClients.readToEnd(consumer, topic), values);
        }
    }

    /** The end offset of each partition of {@code topic} now. */
    static Map<TopicPartition, Long> endOffsets(final String bootstrap, final String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            return new HashMap<>(consumer.endOffsets(partitions(consumer, topic)));
        }
    }

    /** The sum of offsets over partitions. */
    static long sum(final Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /** A {@code read_committed} consumer of raw bytes. */
    static KafkaConsumer<byte[], byte[]> consumer(final String bootstrap) {
        return TestClients.readCommittedConsumer(
                bootstrap, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The partitions of {@code topic}. */
    static List<TopicPartition> partitions(final KafkaConsumer<?, ?> consumer, final String topic) {
        return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
    }

    /** The values of {@code records}, decoded (nulls skipped). */
    static <V> List<V> values(
            final List<ConsumerRecord<byte[], byte[]>> records, final Deserializer<V> values) {
        return records.stream()
                .filter(r -> r.value() != null)
                .map(r -> values.deserialize(r.topic(), r.value()))
                .toList();
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("rwml"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a directory above the working directory holds ./rwml").isNotNull();
        return dir;
    }

    private static String tail(final Path file) {
        try {
            if (!Files.exists(file)) {
                return "(no " + file.getFileName() + ")";
            }
            final String text = Files.readString(file, StandardCharsets.UTF_8);
            return text.length() <= TAIL_CHARS
                    ? text
                    : "..." + text.substring(text.length() - TAIL_CHARS);
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
