package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.embedded.Directories;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.lifecycle.StageRunner;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's "full pipeline by hand": {@code ./rwml up}, {@code env run}, {@code model init} and
 * the three stages, each its own process started through the {@code rwml} script as a user starts
 * them. A version after 0 must be published with every stage caught up, SIGTERM must stop each
 * stage with exit 0, and a stage whose Kafka goes away must exit 1 with the reason on stderr.
 *
 * <p>Every child writes {@code <name>.out} and {@code <name>.err} under {@code
 * target/by-hand-pipeline/}, which stays after the test for diagnosis; assertion messages show
 * their tails.
 */
@Timeout(value = 9, unit = TimeUnit.MINUTES)
class ByHandPipelineIT {

    private static final String RUN = "byhand";
    private static final String PREDICTION_GROUP = "rwml-" + RUN + "-prediction";
    private static final String REWARD_GROUP = "rwml-" + RUN + "-reward";
    private static final String TRAINER_GROUP = "rwml-" + RUN + "-trainer";

    /** Two slow cores also run the build: starting the broker and registry takes a while. */
    private static final Duration CLUSTER_START = Duration.ofMinutes(2);

    private static final Duration COMMAND = Duration.ofMinutes(2);
    private static final Duration STAGE_START = Duration.ofMinutes(2);
    private static final Duration PIPELINE = Duration.ofMinutes(4);
    private static final Duration STOP = Duration.ofSeconds(60);
    private static final Duration BROKER_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Broker timeout, a broker probe in flight (up to 15 s), closing Kafka Streams without a broker
     * (about 30 s here), with room for a loaded CI machine.
     */
    private static final Duration FAIL = Duration.ofSeconds(120);

    private static final int TAIL_CHARS = 6_000;

    private final List<Child> children = new ArrayList<>();
    private Path root;
    private Path work;
    private Path data;

    /** A child process, the files its output goes to, and its log file once it writes one. */
    private record Child(String name, Process process, Path out, Path err, Path log) {

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

    @BeforeEach
    void freshWorkDirectory() throws IOException {
        root = repositoryRoot();
        assertThat(root.resolve("ops/cli/target/rwml.jar"))
                .as("the packaged command (mvn package builds it before integration tests)")
                .exists();
        work = Path.of("target", "by-hand-pipeline").toAbsolutePath();
        Directories.deleteRecursively(work);
        data = work.resolve("data");
        Files.createDirectories(data);
    }

    @AfterEach
    void killEveryChild() {
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

    @Test
    void shouldTrainWithEachStageItsOwnProcessAndExitZeroOnSigtermButOneWhenKafkaIsGone()
            throws Exception {
        final Child up = start("up", "up --run " + RUN);
        final Path clusterFile = data.resolve(ClusterOptions.CLUSTER_FILE);
        await("rwml up writes " + clusterFile)
                .atMost(CLUSTER_START)
                .pollInterval(Duration.ofMillis(500))
                .until(() -> running(up) && Files.exists(clusterFile));
        final Properties cluster = new Properties();
        try (InputStream in = Files.newInputStream(clusterFile)) {
            cluster.load(in);
        }
        final String bootstrap = cluster.getProperty(ClusterOptions.BOOTSTRAP_KEY);
        final String registry = cluster.getProperty(ClusterOptions.REGISTRY_KEY);

        runToEnd("env-pretrain", "env run --env alfworld --agents 2 --episodes 30 --seed 1");
        runToEnd("model-init", "model init --run " + RUN + " --size tiny --steps 150");
        final Map<TopicPartition, Long> slice = endOffsets(bootstrap, TopicCatalog.TRANSITIONS);

        // The quick demo's settings: a d32 model needs partial credit (cosine 0.6) for its groups
        // to carry any advantage, and small groups and steps keep two cores busy for seconds.
        final Child predict =
                start(
                        "predict",
                        "predict --run "
                                + RUN
                                + " --set start.from=latest --set group.size=4"
                                + " --set sampling.max.new.tokens=48 --set batch.size=4",
                        "--set",
                        "state.dir=" + work.resolve("prediction-state"));
        final Child reward = startReward("reward");
        final Child train =
                start(
                        "train",
                        "train --run "
                                + RUN
                                + " --set groups.per.step=4 --set publish.every.steps=1"
                                + " --set learning.rate=3e-3");
        final List<Child> stages = List.of(predict, reward, train);

        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // start.from=latest is committed when the stage starts, so no transition produced
            // after this is skipped, and `rwml status` does not count the slice as its lag.
            awaitStageStart(
                    "the prediction stage commits its start at the end of the pretraining slice",
                    () -> running(stages) && committed(admin, PREDICTION_GROUP).equals(slice));

            runToEnd(
                    "env-rwml",
                    "env run --env alfworld --agents 2 --episodes 20 --seed 2 --policy epsilon");
            final long produced = sum(endOffsets(bootstrap, TopicCatalog.TRANSITIONS)) - sum(slice);
            assertThat(produced).as("transitions after the slice").isPositive();

            final RunTopics topics = TopicCatalog.defaults().run(RUN);
            await("a version after 0 with every stage caught up")
                    .atMost(PIPELINE)
                    .pollInterval(Duration.ofSeconds(3))
                    .untilAsserted(
                            () -> {
                                running(stages);
                                assertThat(latestVersion(bootstrap, registry, topics))
                                        .as("latest version on %s", topics.models().name())
                                        .isPositive();
                                assertThat(unconsumed(admin, bootstrap, topics))
                                        .as("records each stage has not consumed")
                                        .allSatisfy((input, n) -> assertThat(n).isZero());
                            });
            assertThat(committedRecords(bootstrap, topics.predictions().name()))
                    .as("one prediction group per transition after the slice")
                    .isEqualTo(produced);
            assertThat(committedRecords(bootstrap, topics.rewards().name()))
                    .as("one rewarded group per prediction group")
                    .isEqualTo(produced);
            assertStatusShowsTheRun();

            stages.forEach(stage -> stage.process().destroy());
            for (final Child stage : stages) {
                assertExits(stage, STOP, StageRunner.EXIT_STOPPED);
            }

            failWhenKafkaGoesAway(admin, up);
        }
    }

    /** Waits, polling each second up to {@link #STAGE_START}, until a stage has started. */
    private static void awaitStageStart(final String description, final Callable<Boolean> started) {
        await(description).atMost(STAGE_START).pollInterval(Duration.ofSeconds(1)).until(started);
    }

    /** Starts the reward stage again, stops the cluster under it, and expects exit 1. */
    private void failWhenKafkaGoesAway(final Admin admin, final Child up) throws Exception {
        final List<String> before = memberIds(admin, REWARD_GROUP);
        final Child reward =
                startReward("reward-without-kafka", "--set", "broker.timeout=" + BROKER_TIMEOUT);
        awaitStageStart(
                "the restarted reward stage joins its group",
                () ->
                        running(reward)
                                && memberIds(admin, REWARD_GROUP).stream()
                                        .anyMatch(id -> !before.contains(id)));

        up.process().destroy();
        assertExits(up, STOP, 0);
        assertThat(Files.readString(up.out())).contains("rwml up: stopped");
        assertExits(reward, FAIL, StageRunner.EXIT_FAILED);
        assertThat(Files.readString(reward.err()))
                .as("the reason on stderr%s", reward.tails())
                .contains("rwml reward: ")
                .contains("Kafka");
    }

    private Child startReward(final String name, final String... extra) throws IOException {
        final List<String> args =
                new ArrayList<>(List.of("--set", "state.dir=" + work.resolve("reward-state")));
        args.addAll(List.of(extra));
        return start(
                name,
                "reward --run " + RUN + " --set reward.spec=TEXT=cosine:0.6",
                args.toArray(String[]::new));
    }

    /** {@code ./rwml status --json}, as a user asks whether the run is healthy. */
    private void assertStatusShowsTheRun() throws Exception {
        // The trainer commits past the reward stage's last transaction marker once it has been idle
        // for batch.timeout, so its lag may read 1 per partition for a moment.
        final JsonNode[] last = new JsonNode[1];
        await("rwml status shows every stage caught up")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(
                        () -> {
                            final Child status =
                                    runToEnd("status", "status --run " + RUN + " --json");
                            final JsonNode json =
                                    new ObjectMapper().readTree(Files.readString(status.out()));
                            final Map<String, Long> lags = new HashMap<>();
                            for (final JsonNode stage : json.get("stages")) {
                                long lag = 0;
                                for (final JsonNode byTopic : stage.get("lagByTopic")) {
                                    lag += byTopic.asLong();
                                }
                                lags.put(stage.get("stage").asText(), lag);
                            }
                            assertThat(lags)
                                    .as("lag per stage%s", status.tails())
                                    .containsEntry("prediction", 0L)
                                    .containsEntry("reward", 0L)
                                    .containsEntry("trainer", 0L);
                            last[0] = json;
                        });
        final JsonNode json = last[0];
        final List<Long> versions = new ArrayList<>();
        json.get("versions").forEach(v -> versions.add(v.get("version").asLong()));
        assertThat(versions).as("versions in %s", json).contains(0L, 1L);
    }

    // ---- processes ----

    /**
     * Starts {@code ./rwml <commandLine> <more> --data-dir <data>}: the command line is split at
     * spaces, {@code more} (paths) is passed as given.
     */
    private Child start(final String name, final String commandLine, final String... more)
            throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(root.resolve("rwml").toString());
        command.addAll(List.of(commandLine.split(" ")));
        command.addAll(List.of(more));
        command.add("--data-dir");
        command.add(data.toString());
        final ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(work.toFile())
                        .redirectOutput(work.resolve(name + ".out").toFile())
                        .redirectError(work.resolve(name + ".err").toFile());
        // The JVM of this test, and none of a developer's RWML_* settings.
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().keySet().removeIf(key -> key.startsWith("RWML_"));
        final Child child =
                new Child(
                        name,
                        builder.start(),
                        work.resolve(name + ".out"),
                        work.resolve(name + ".err"),
                        // Where the command writes its library logs (it says so on stderr).
                        work.resolve(".rwml/logs/" + command.get(1) + ".log"));
        children.add(child);
        return child;
    }

    private Child runToEnd(final String name, final String commandLine) throws Exception {
        final Child child = start(name, commandLine);
        assertExits(child, COMMAND, 0);
        return child;
    }

    private static void assertExits(final Child child, final Duration within, final int code)
            throws InterruptedException {
        assertThat(child.process().waitFor(within.toSeconds(), TimeUnit.SECONDS))
                .as("rwml %s ended within %s%s", child.name(), within, child.tails())
                .isTrue();
        assertThat(child.process().exitValue())
                .as("exit code of rwml %s%s", child.name(), child.tails())
                .isEqualTo(code);
    }

    /** True while the children run; a child that died fails the wait at once, with its output. */
    private static boolean running(final Child... children) {
        return running(List.of(children));
    }

    private static boolean running(final List<Child> children) {
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

    // ---- Kafka ----

    private static Map<TopicPartition, Long> committed(final Admin admin, final String group)
            throws Exception {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .forEach(
                        (tp, o) -> {
                            if (o != null) {
                                offsets.put(tp, o.offset());
                            }
                        });
        return offsets;
    }

    private static List<String> memberIds(final Admin admin, final String group) throws Exception {
        return admin
                .describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get(30, TimeUnit.SECONDS)
                .members()
                .stream()
                .map(m -> m.consumerId())
                .toList();
    }

    /** What each stage has not consumed of each of its inputs, by "stage <- topic". */
    private static Map<String, Long> unconsumed(
            final Admin admin, final String bootstrap, final RunTopics topics) throws Exception {
        final String[][] inputs = {
            {"prediction", PREDICTION_GROUP, TopicCatalog.TRANSITIONS},
            {"reward", REWARD_GROUP, topics.predictions().name()},
            {"reward", REWARD_GROUP, TopicCatalog.TRANSITIONS},
            {"trainer", TRAINER_GROUP, topics.rewards().name()}
        };
        final Map<String, Long> behind = new LinkedHashMap<>();
        for (final String[] input : inputs) {
            behind.put(
                    input[0] + " <- " + input[2], unconsumed(admin, bootstrap, input[1], input[2]));
        }
        return behind;
    }

    /**
     * The committed records of {@code topic} after the group's committed offsets (from the log
     * start where it committed none), read as the stages read them. A transaction marker after a
     * committed offset is no record: a consumer that commits the offset after its last record, as
     * the trainer does, has nothing left to read when only the marker follows.
     */
    private static long unconsumed(
            final Admin admin, final String bootstrap, final String group, final String topic)
            throws Exception {
        final Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            for (final TopicPartition tp : partitions) {
                final OffsetAndMetadata c = committed.get(tp);
                if (c != null) {
                    consumer.seek(tp, c.offset());
                }
            }
            return readToEnd(consumer, partitions, new ByteArrayDeserializer()).size();
        }
    }

    private static long committedRecords(final String bootstrap, final String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            return readToEnd(consumer, partitions, new ByteArrayDeserializer()).size();
        }
    }

    private static long latestVersion(
            final String bootstrap, final String registry, final RunTopics topics) {
        final Deserializer<ModelVersion> manifests =
                topics.models().valueSerde(EventSerdes.registryConfig(registry)).deserializer();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final List<TopicPartition> partitions = partitions(consumer, topics.models().name());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            return readToEnd(consumer, partitions, manifests).stream()
                    .mapToLong(ModelVersion::getVersion)
                    .max()
                    .orElse(-1);
        }
    }

    private static Map<TopicPartition, Long> endOffsets(
            final String bootstrap, final String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            return new HashMap<>(consumer.endOffsets(partitions(consumer, topic)));
        }
    }

    private static long sum(final Map<TopicPartition, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    private static KafkaConsumer<byte[], byte[]> consumer(final String bootstrap) {
        return TestClients.readCommittedConsumer(
                bootstrap, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(
            final KafkaConsumer<?, ?> consumer, final String topic) {
        return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
    }

    /** The values from each partition's position up to its end offset now (nulls skipped). */
    private static <V> List<V> readToEnd(
            final KafkaConsumer<byte[], byte[]> consumer,
            final List<TopicPartition> partitions,
            final Deserializer<V> values) {
        final Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        final List<V> read = new ArrayList<>();
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
            assertThat(System.nanoTime()).as("read up to %s in 30 s", ends).isLessThan(deadline);
            for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.value() != null) {
                    read.add(values.deserialize(r.topic(), r.value()));
                }
            }
        }
        return read;
    }

    // ---- files ----

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
