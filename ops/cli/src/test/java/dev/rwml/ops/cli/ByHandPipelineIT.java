package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.assertExited;
import static dev.rwml.ops.cli.RwmlProcesses.awaitExit;
import static dev.rwml.ops.cli.RwmlProcesses.committedRecords;
import static dev.rwml.ops.cli.RwmlProcesses.consumer;
import static dev.rwml.ops.cli.RwmlProcesses.endOffsets;
import static dev.rwml.ops.cli.RwmlProcesses.partitions;
import static dev.rwml.ops.cli.RwmlProcesses.readCommitted;
import static dev.rwml.ops.cli.RwmlProcesses.running;
import static dev.rwml.ops.cli.RwmlProcesses.sum;
import static dev.rwml.ops.cli.RwmlProcesses.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.Rollout;
import dev.rwml.events.RolloutStep;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.cli.RwmlProcesses.Exit;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The "full pipeline by hand" of docs/operations.md: {@code ./rwml up}, {@code env run}, {@code
 * model init} and the three stages, each its own process started through the {@code rwml} script as
 * a user starts them. A version after 0 must be published with every stage caught up, SIGTERM must
 * stop each stage with exit 0, and a stage whose Kafka goes away must exit 1 with the reason on
 * stderr.
 *
 * <p>The scenario runs once, before the tests; each behaviour is then checked by a test of its own.
 * Every child writes {@code <name>.out} and {@code <name>.err} under {@code
 * target/by-hand-pipeline/}, which stays after the test for diagnosis; assertion messages show
 * their tails.
 */
@Tag("system")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ByHandPipelineIT {

    private static final String RUN = "byhand";
    private static final String PREDICTION_GROUP = StageName.PREDICTION.groupId(RUN);
    private static final String REWARD_GROUP = StageName.REWARD.groupId(RUN);
    private static final String TRAINER_GROUP = StageName.TRAINER.groupId(RUN);

    private static final Duration STAGE_START = Duration.ofMinutes(2);
    private static final int ACTED_EPISODES = 6;
    private static final int EPISODES_PER_GAME = 2;
    private static final Duration PIPELINE = Duration.ofMinutes(4);
    private static final Duration STOP = Duration.ofSeconds(60);
    private static final Duration BROKER_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Broker timeout, a broker probe in flight (up to 15 s), closing Kafka Streams without a broker
     * (about 30 s here), with room for a loaded CI machine.
     */
    private static final Duration FAIL = Duration.ofSeconds(120);

    @RegisterExtension static final RwmlProcesses RWML = new RwmlProcesses("by-hand-pipeline");

    // What the scenario saw, for the tests.
    private long produced;
    private long predicted;
    private long rewarded;
    private JsonNode status;
    private long corrupt;
    private String predictLogAfterCorrupt;
    private List<Exit> stopped;
    private Exit upStopped;
    private Exit rewardWithoutKafka;
    private List<Transition> acted;
    private List<Rollout> rollouts;
    private String actedOut;

    /**
     * Runs the pipeline by hand until a version after 0 is published with every stage caught up,
     * asks {@code rwml status}, publishes a corrupt version, stops the stages with SIGTERM, and
     * stops the cluster under a restarted reward stage.
     */
    @BeforeAll
    @Timeout(value = 9, unit = TimeUnit.MINUTES)
    void trainByHandThenStopTheStagesAndThenTheCluster() throws Exception {
        final RwmlProcesses.Cluster cluster = RWML.up("--run " + RUN);
        final Child up = cluster.up();
        final String bootstrap = cluster.bootstrap();
        final String registry = cluster.registry();

        RWML.initTinyModel(RUN, 30);
        final Map<TopicPartition, Long> slice = endOffsets(bootstrap, TopicCatalog.TRANSITIONS);

        // The quick demo's settings: a d32 model needs partial credit (cosine 0.6) for its groups
        // to carry any advantage, and small groups and steps keep two cores busy for seconds.
        final Child predict =
                RWML.start(
                        "predict",
                        "predict --run "
                                + RUN
                                + " --set group.size=4"
                                + " --set sampling.max.new.tokens=48 --set batch.size=4",
                        "--set",
                        "state.dir=" + RWML.work().resolve("prediction-state"));
        final Child reward = startReward("reward");
        final Child train =
                RWML.start(
                        "train",
                        "train --run "
                                + RUN
                                + " --set groups.per.step=4 --set publish.every.steps=1"
                                + " --set learning.rate=3e-3");
        final List<Child> stages = List.of(predict, reward, train);

        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            // start.from=after-base (the default) is committed when the stage starts: the end of
            // version 0's lineage, the pretraining slice. So no transition produced
            // after this is skipped, and `rwml status` does not count the slice as its lag.
            awaitStageStart(
                    "the prediction stage commits its start at the end of the pretraining slice",
                    () -> running(stages) && committed(admin, PREDICTION_GROUP).equals(slice));

            RWML.runToEnd(
                    "env-rwml",
                    "env run --env alfworld --agents 2 --episodes 20 --seed 2 --policy epsilon");
            produced = sum(endOffsets(bootstrap, TopicCatalog.TRANSITIONS)) - sum(slice);
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
            predicted = committedRecords(bootstrap, topics.predictions().name());
            rewarded = committedRecords(bootstrap, topics.rewards().name());
            status = awaitStatusShowsEveryStageCaughtUp();
            publishACorruptVersionAndAwaitStatusShowsItRejected(bootstrap, registry, topics);
            predictLogAfterCorrupt = Files.readString(predict.log());

            stages.forEach(stage -> stage.process().destroy());
            final List<Exit> exits = new ArrayList<>();
            for (final Child stage : stages) {
                exits.add(awaitExit(stage, STOP));
            }
            stopped = exits;

            actWithTheRunsModel(bootstrap, registry);

            stopTheClusterUnderARestartedRewardStage(admin, up);
        }
    }

    @Test
    void shouldPredictOneGroupPerTransitionAfterTheSlice() {
        assertThat(predicted)
                .as("one prediction group per transition after the slice")
                .isEqualTo(produced);
    }

    @Test
    void shouldRewardOneGroupPerPredictionGroup() {
        assertThat(rewarded).as("one rewarded group per prediction group").isEqualTo(produced);
    }

    @Test
    void shouldShowVersionsZeroAndOneInStatus() {
        final List<Long> versions = new ArrayList<>();
        status.get("versions").forEach(v -> versions.add(v.get("version").asLong()));
        assertThat(versions).as("versions in %s", status).contains(0L, 1L);
    }

    @Test
    void shouldKeepServingItsVersionWhenANewOneIsCorrupt() {
        assertThat(predictLogAfterCorrupt)
                .as("the prediction stage's log")
                .contains("rejected version " + corrupt)
                .doesNotContain("loaded version " + corrupt);
    }

    @Test
    void shouldStopEachStageWithExitZeroOnSigterm() {
        for (final Exit stage : stopped) {
            assertExited(stage, StageRunner.EXIT_STOPPED);
        }
    }

    @Test
    void shouldStopTheClusterWithExitZeroOnSigterm() throws Exception {
        assertExited(upStopped, 0);
        assertThat(Files.readString(upStopped.child().out())).contains("rwml up: stopped");
    }

    @Test
    void shouldExitOneWithTheReasonOnStderrWhenKafkaIsGone() throws Exception {
        assertExited(rewardWithoutKafka, StageRunner.EXIT_FAILED);
        final Child reward = rewardWithoutKafka.child();
        assertThat(Files.readString(reward.err()))
                .as("the reason on stderr%s", reward.tails())
                .contains("rwml reward: ")
                .contains("Kafka");
    }

    /**
     * {@code env run --policy model}: the run's newest valid version acts (the corrupt one is
     * refused), and each episode is published with its rollout in one transaction. The first
     * process is SIGKILLed once an episode is committed; the same command again publishes the
     * missing episodes only.
     */
    private void actWithTheRunsModel(final String bootstrap, final String registry)
            throws Exception {
        final String command =
                "env run --env alfworld --episodes "
                        + ACTED_EPISODES
                        + " --episodes-per-game "
                        + EPISODES_PER_GAME
                        + " --seed 4 --policy model --run "
                        + RUN
                        + " --max-new-tokens 16";
        final String rolloutsTopic = TopicCatalog.defaults().run(RUN).rollouts().name();
        final Child killed = RWML.start("env-model-killed", command);
        await("a first episode committed by the acting process")
                .atMost(STAGE_START)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () ->
                                killed.process().isAlive()
                                        && exists(bootstrap, rolloutsTopic)
                                        && committedRecords(bootstrap, rolloutsTopic) > 0);
        killed.process().destroyForcibly();
        assertThat(killed.process().waitFor(30, TimeUnit.SECONDS)).as("env run killed").isTrue();

        final Child act = RWML.runToEnd("env-model", command);
        actedOut = Files.readString(act.out());
        final Map<String, ?> serdes = EventSerdes.registryConfig(registry);
        acted =
                readCommitted(
                                bootstrap,
                                TopicCatalog.TRANSITIONS,
                                TopicCatalog.defaults()
                                        .transitions()
                                        .valueSerde(serdes)
                                        .deserializer())
                        .stream()
                        .filter(t -> t.getPolicy().getName().equals("model"))
                        .toList();
        rollouts =
                readCommitted(
                        bootstrap,
                        rolloutsTopic,
                        TopicCatalog.defaults()
                                .run(RUN)
                                .rollouts()
                                .valueSerde(serdes)
                                .deserializer());
    }

    @Test
    void shouldActWithTheNewestValidVersionAndPublishItsStepsTaggedWithIt() {
        assertThat(acted).as("transitions of env run --policy model").isNotEmpty();
        assertThat(acted)
                .extracting(t -> t.getPolicy().getModelVersion())
                .doesNotContainNull()
                .allSatisfy(v -> assertThat(v).isBetween(0L, corrupt - 1));
        assertThat(acted.stream().mapToLong(t -> t.getPolicy().getModelVersion()).max())
                .as("the newest valid version acts once the follower has read it")
                .hasValue(corrupt - 1);
        acted.stream()
                .filter(t -> t.getMetadata().containsKey(EpisodeRunner.INVALID_ANSWER))
                .forEach(t -> assertThat(t.getActionValid()).isFalse());
    }

    @Test
    void shouldPublishEachActedGameOnceWithItsRolloutsThroughAKill() {
        assertThat(rollouts)
                .extracting(Rollout::getEpisode)
                .as("one rollout per episode, the killed process's and the rerun's")
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, ACTED_EPISODES).boxed().toList());
        assertThat(acted)
                .extracting(Transition::getTransitionId)
                .as("every acted transition once, each in its episode's rollout")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(
                        rollouts.stream()
                                .flatMap(r -> r.getSteps().stream())
                                .map(RolloutStep::getTransitionId)
                                .toList());
        final Map<String, Transition> byId =
                acted.stream().collect(Collectors.toMap(Transition::getTransitionId, t -> t));
        for (final Rollout rollout : rollouts) {
            assertThat(rollout.getEpisodeId()).endsWith("@" + RUN);
            assertThat(rollout.getRolloutId()).isEqualTo("alfworld/" + rollout.getEpisodeId());
            long invalid = 0;
            long sampled = 0;
            for (final RolloutStep step : rollout.getSteps()) {
                final Transition t = byId.get(step.getTransitionId());
                assertThat(t.getEpisodeId()).isEqualTo(rollout.getEpisodeId());
                assertThat(step.getModelVersion()).isEqualTo(t.getPolicy().getModelVersion());
                assertThat(step.getAction()).isEqualTo(t.getAction());
                assertThat(step.getLogProbs())
                        .hasSameSizeAs(step.getAnswerTokenIds())
                        .allSatisfy(p -> assertThat(p).isLessThanOrEqualTo(0f));
                if (step.getPromptTokenIds().isEmpty()) {
                    // Nothing was sampled: the acting prompt did not fit the model.
                    assertThat(step.getAnswerTokenIds()).isEmpty();
                    assertThat(step.getInvalidAnswer()).startsWith("the acting prompt takes");
                } else {
                    assertThat(step.getAnswerTokenIds()).isNotEmpty();
                    sampled++;
                }
                invalid += t.getActionValid() ? 0 : 1;
            }
            assertThat(rollout.getInvalidActions()).isEqualTo(invalid);
            assertThat(sampled).as("steps with a sampled answer").isPositive();
            assertThat(rollout.getSampling().getGroupSize()).isEqualTo(1);
        }
        final Map<String, List<Rollout>> games =
                rollouts.stream().collect(Collectors.groupingBy(Rollout::getGroupId));
        assertThat(games).hasSize(ACTED_EPISODES / EPISODES_PER_GAME);
        games.forEach(
                (group, played) -> {
                    assertThat(played).hasSize(EPISODES_PER_GAME);
                    assertThat(played)
                            .extracting(Rollout::getGame)
                            .containsOnly(played.get(0).getGame());
                    assertThat(played)
                            .extracting(Rollout::getTask)
                            .containsOnly(played.get(0).getTask());
                    assertThat(played.stream().mapToDouble(Rollout::getAdvantage).sum())
                            .as("advantages of %s", group)
                            .isCloseTo(0.0, within(1e-9));
                });
        final Matcher summary =
                Pattern.compile(
                                "published (\\d+) episodes, (\\d+) transitions.*; (\\d+) episodes"
                                        + " were already published by an earlier run")
                        .matcher(actedOut);
        assertThat(summary.find()).as("the rerun's closing line in %s", actedOut).isTrue();
        final int published = Integer.parseInt(summary.group(1));
        final int before = Integer.parseInt(summary.group(3));
        assertThat(before).as("episodes the killed process committed").isPositive();
        assertThat(before % EPISODES_PER_GAME).as("whole games").isZero();
        assertThat(published + before).isEqualTo(ACTED_EPISODES);
        // One agent acts the episodes in order: the killed process committed the first ones.
        assertThat(Long.parseLong(summary.group(2)))
                .as("the rerun's transitions: those of the episodes it published")
                .isEqualTo(
                        rollouts.stream()
                                .filter(r -> r.getEpisode() >= before)
                                .mapToLong(r -> r.getSteps().size())
                                .sum());
    }

    /** Whether {@code topic} exists (asked without a consumer, which would create it). */
    private static boolean exists(final String bootstrap, final String topic) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return admin.listTopics()
                    .names()
                    .get(BROKER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .contains(topic);
        }
    }

    /** Waits, polling each second up to {@link #STAGE_START}, until a stage has started. */
    private static void awaitStageStart(final String description, final Callable<Boolean> started) {
        await(description).atMost(STAGE_START).pollInterval(Duration.ofSeconds(1)).until(started);
    }

    /** Starts the reward stage again, stops the cluster under it, and waits for both to end. */
    private void stopTheClusterUnderARestartedRewardStage(final Admin admin, final Child up)
            throws Exception {
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
        upStopped = awaitExit(up, STOP);
        rewardWithoutKafka = awaitExit(reward, FAIL);
    }

    private static Child startReward(final String name, final String... extra) throws IOException {
        final List<String> args =
                new ArrayList<>(
                        List.of("--set", "state.dir=" + RWML.work().resolve("reward-state")));
        args.addAll(List.of(extra));
        return RWML.start(
                name,
                "reward --run " + RUN + " --set reward.spec=TEXT=cosine:0.6",
                args.toArray(String[]::new));
    }

    /**
     * {@code ./rwml status --json}, as a user asks whether the run is healthy; its last answer,
     * once it shows every stage caught up.
     */
    private static JsonNode awaitStatusShowsEveryStageCaughtUp() {
        // The trainer commits past the reward stage's last transaction marker once it has been idle
        // for batch.timeout, so its lag may read 1 per partition for a moment.
        final JsonNode[] last = new JsonNode[1];
        await("rwml status shows every stage caught up")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(
                        () -> {
                            final Child answer =
                                    RWML.runToEnd("status", "status --run " + RUN + " --json");
                            final JsonNode json =
                                    new ObjectMapper().readTree(Files.readString(answer.out()));
                            final Map<String, Long> lags = new HashMap<>();
                            for (final JsonNode stage : json.get("stages")) {
                                long lag = 0;
                                for (final JsonNode byTopic : stage.get("lagByTopic")) {
                                    lag += byTopic.asLong();
                                }
                                lags.put(stage.get("stage").asText(), lag);
                            }
                            assertThat(lags)
                                    .as("lag per stage%s", answer.tails())
                                    .containsEntry("prediction", 0L)
                                    .containsEntry("reward", 0L)
                                    .containsEntry("trainer", 0L);
                            last[0] = json;
                        });
        return last[0];
    }

    /**
     * A version whose manifest names chunks that were never written and a wrong SHA-256 (the
     * trainer is idle: no transitions come after the test's): the prediction process keeps its
     * version and dead-letters the new one, and {@code ./rwml status} names the version and what
     * was wrong. {@code ModelChannelIT} covers a flipped byte and a wrong SHA-256 of real chunks.
     */
    private void publishACorruptVersionAndAwaitStatusShowsItRejected(
            final String bootstrap, final String registry, final RunTopics topics)
            throws Exception {
        final Map<String, String> serde = EventSerdes.registryConfig(registry);
        final ModelVersion latest = latestManifest(bootstrap, registry, topics).orElseThrow();
        corrupt = latest.getVersion() + 1;
        final ModelVersion lying =
                ModelVersion.newBuilder(latest)
                        .setVersion(corrupt)
                        .setParentVersion(latest.getVersion())
                        .setArtifact(
                                ArtifactRef.newBuilder(latest.getArtifact())
                                        .setSha256("0".repeat(64))
                                        .build())
                        .build();
        try (KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(
                                Map.of(
                                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                        bootstrap,
                                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                                        "byhand-it-corrupt",
                                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                                        ByteArraySerializer.class,
                                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                                        ByteArraySerializer.class));
                EventSerde<ModelVersion> manifests = topics.models().valueSerde(serde)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(
                    new ProducerRecord<>(
                            topics.models().name(),
                            Long.toString(corrupt).getBytes(StandardCharsets.UTF_8),
                            manifests.serializer().serialize(topics.models().name(), lying)));
            producer.commitTransaction();
        }
        await("rwml status shows version " + corrupt + " rejected by the prediction stage")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(
                        () -> {
                            final Child rejected =
                                    RWML.runToEnd("status-rejected", "status --run " + RUN);
                            assertThat(Files.readString(rejected.out()))
                                    .as("rwml status%s", rejected.tails())
                                    .contains(
                                            "prediction "
                                                    + DeadLetters.MODEL_REJECTED
                                                    + " from "
                                                    + topics.models().name())
                                    .contains(
                                            "model version "
                                                    + corrupt
                                                    + " of run '"
                                                    + RUN
                                                    + "' rejected: found 0 of its");
                        });
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
            return values(TestClients.readToEnd(consumer, partitions), new ByteArrayDeserializer())
                    .size();
        }
    }

    private static Optional<ModelVersion> latestManifest(
            final String bootstrap, final String registry, final RunTopics topics) {
        final Deserializer<ModelVersion> manifests =
                topics.models().valueSerde(EventSerdes.registryConfig(registry)).deserializer();
        return readCommitted(bootstrap, topics.models().name(), manifests).stream()
                .max(Comparator.comparingLong(ModelVersion::getVersion));
    }

    private static long latestVersion(
            final String bootstrap, final String registry, final RunTopics topics) {
        return latestManifest(bootstrap, registry, topics)
                .map(ModelVersion::getVersion)
                .orElse(-1L);
    }
}
