package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.channel.ModelCommands;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.RewardedGroup;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.Meters;
import dev.rwml.runtime.errors.UnfitSettingsException;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.ModelRuntime;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The trainer on the embedded broker and registry with the real DJL model: lineage, crash and
 * resume at every named fault point, staleness.
 */
class TrainerIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final Duration WAIT = Duration.ofSeconds(180);
    private static final String DEAD_LETTERS = "rwml.trainer.dead.letters";
    private static final String OUTAGE_RETRIES = "rwml.trainer.outage.retries";
    private static int vocab;

    @TempDir java.nio.file.Path dir;

    @BeforeAll
    static void vocabulary() {
        try (WorldModelTokenizer t = WorldModelTokenizer.fromJson(TrainerFixture.tokenizerJson())) {
            vocab = t.vocabSize();
        }
    }

    /** A crash injected by a test. */
    static final class SimulatedCrash extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SimulatedCrash(final FaultPoint point) {
            super("simulated crash at " + point);
        }
    }

    /** Every committed version and the ids trained into it, across trainer incarnations. */
    static final class Ledger implements PublishListener {
        final List<ModelVersion> versions = new CopyOnWriteArrayList<>();
        final List<String> trained = new CopyOnWriteArrayList<>();

        @Override
        public void published(final ModelVersion manifest, final List<String> ids) {
            versions.add(manifest);
            trained.addAll(ids);
        }
    }

    private String newRun() {
        final String run = "trainer-it-" + RUNS.incrementAndGet();
        TrainerFixture.init(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl(), run, vocab);
        return run;
    }

    private TrainerConfig config(final String run, final Map<String, String> overrides) {
        final Map<String, String> all = new HashMap<>();
        all.put("bootstrap.servers", KAFKA.bootstrapServers());
        all.put("schema.registry.url", KAFKA.schemaRegistryUrl());
        all.put("groups.per.step", "2");
        all.put("publish.every.steps", "2");
        all.put("batch.timeout", "PT0.3S");
        all.put("learning.rate", "0.001");
        all.put("chunk.size.bytes", "16384");
        all.putAll(overrides);
        return TrainerConfig.defaults(run).with(all);
    }

    private static List<RewardedGroup> groups(
            final String prefix, final int n, final long version) {
        final List<RewardedGroup> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Groups.group(prefix + "/" + i + "/0", version, 4, vocab));
        }
        return out;
    }

    private static TrainerLoop loop(
            final TrainerConfig config, final SimpleMeterRegistry meters, final Ledger ledger) {
        return new TrainerLoop(
                config, WorldModelPolicyTrainer.factory(), meters, FaultHook.NONE, ledger);
    }

    private static TrainerLoop loop(final TrainerConfig config, final Ledger ledger) {
        return loop(config, new SimpleMeterRegistry(), ledger);
    }

    /** {@code n} groups without signal: every sample has zero advantage. */
    private static List<RewardedGroup> zeroAdvantage(final int n) {
        final List<RewardedGroup> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Groups.zeroAdvantage(Groups.group("flat/" + i + "/0", 0, 4, vocab)));
        }
        return out;
    }

    /** Bytes that are no framed event: the trainer dead-letters them. */
    private static void sendUndecodable(final KafkaProducer<String, byte[]> p, final String run) {
        p.send(new ProducerRecord<>("rwml." + run + ".rewards", "junk/0/0", new byte[] {1, 2, 3}));
        p.flush();
    }

    private static Connection connection() {
        return Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl());
    }

    private static CompletableFuture<Long> start(final TrainerLoop loop) {
        return CompletableFuture.supplyAsync(loop::run);
    }

    @Test
    void shouldPublishVersionsWhoseLineageCoversTheStreamOnce() throws Exception {
        final String run = newRun();
        final List<RewardedGroup> input = groups("alfworld/e1", 12, 0);
        try (KafkaProducer<String, byte[]> p =
                TrainerFixture.rewardsProducer(KAFKA.bootstrapServers())) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, input);
        }
        final Ledger ledger = new Ledger();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TrainerLoop loop = loop(config(run, Map.of()), meters, ledger)) {
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> ledger.trained.size() == 12 || done.isDone());
            loop.close();
            assertThat(done.get()).isEqualTo(3L);
        }
        assertThat(ledger.trained)
                .containsExactlyInAnyOrderElementsOf(ids(input))
                .doesNotHaveDuplicates();
        assertThat(ledger.versions)
                .extracting(ModelVersion::getVersion)
                .containsExactly(1L, 2L, 3L);
        assertCoversOnce(ledger.versions, 12);
        final ModelVersion last = ledger.versions.get(2);
        assertThat(last.getParentVersion()).isEqualTo(2L);
        assertThat(last.getCounters().getSteps()).isEqualTo(2);
        assertThat(last.getCounters().getGroups()).isEqualTo(4);
        assertThat(last.getMetrics())
                .containsKeys("meanReward", "passRate", "loss", "kl", "clipFraction", "gradNorm");
        assertThat(last.getTrainerConfig()).containsEntry("objective", "grpo");
        assertThat(meters.get("rwml.trainer.model.version").gauge().value()).isEqualTo(3.0);
        assertThat(meters.get("rwml.trainer.groups").counter().count()).isEqualTo(12.0);

        final List<ModelVersion> listed = ModelCommands.list(connection(), run);
        assertThat(listed).extracting(ModelVersion::getVersion).containsExactly(0L, 1L, 2L, 3L);
        assertThat(ModelCommands.describe(listed.get(3)))
                .contains("v3 parent=2 grpo")
                .contains("lineage=[rwml." + run);
        final java.nio.file.Path exported =
                ModelCommands.export(
                        connection(), run, OptionalLong.empty(), Optional.empty(), dir);
        final Checkpoint checkpoint =
                Checkpoint.fromBytes(java.nio.file.Files.readAllBytes(exported));
        assertThat(checkpoint.version()).isEqualTo(3);
        assertThat(checkpoint.optimizerState()).isNotEmpty();
    }

    @ParameterizedTest
    @EnumSource(
            value = FaultPoint.class,
            names = {"BETWEEN_STEPS", "BETWEEN_CHUNKS", "BEFORE_COMMIT"})
    void shouldTrainEveryGroupExactlyOnceAcrossACrashAndRestart(final FaultPoint point)
            throws Exception {
        final String run = newRun();
        final List<RewardedGroup> input = groups("alfworld/" + point, 16, 0);
        try (KafkaProducer<String, byte[]> p =
                TrainerFixture.rewardsProducer(KAFKA.bootstrapServers())) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, input);
        }
        final Ledger ledger = new Ledger();
        // Crash at the first `point` after version 1 was committed.
        final FaultHook crash =
                new FaultHook() {
                    private boolean committedOnce;

                    @Override
                    public void at(final FaultPoint reached) {
                        if (reached == FaultPoint.AFTER_COMMIT) {
                            committedOnce = true;
                        } else if (reached == point && committedOnce) {
                            throw new SimulatedCrash(point);
                        }
                    }
                };
        final TrainerConfig config = config(run, Map.of("staleness.bound", "100"));
        try (TrainerLoop first =
                new TrainerLoop(
                        config,
                        WorldModelPolicyTrainer.factory(),
                        new SimpleMeterRegistry(),
                        crash,
                        ledger)) {
            final CompletableFuture<Long> done = start(first);
            await().atMost(WAIT).until(done::isDone);
            assertThat(done).isCompletedExceptionally();
        }
        assertThat(ledger.versions).extracting(ModelVersion::getVersion).containsExactly(1L);

        try (TrainerLoop second = loop(config, ledger)) {
            final CompletableFuture<Long> done = start(second);
            await().atMost(WAIT).until(() -> ledger.trained.size() >= 16 || done.isDone());
            second.close();
            assertThat(done.get()).isEqualTo(4L);
        }
        assertThat(ledger.trained)
                .containsExactlyInAnyOrderElementsOf(ids(input))
                .doesNotHaveDuplicates();
        assertThat(ledger.versions)
                .extracting(ModelVersion::getVersion)
                .containsExactly(1L, 2L, 3L, 4L);
        assertCoversOnce(ledger.versions, 16);
        final List<ModelVersion> committed = ModelCommands.list(connection(), run);
        assertThat(committed)
                .extracting(ModelVersion::getVersion)
                .containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void shouldDropAndCountStaleGroupsAndSkipThoseWithoutSignal() throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final TrainerConfig config = config(run, Map.of("staleness.bound", "0"));
        try (KafkaProducer<String, byte[]> p =
                        TrainerFixture.rewardsProducer(KAFKA.bootstrapServers());
                TrainerLoop loop = loop(config, meters, ledger)) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, groups("a", 4, 0));
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> ledger.versions.size() == 1 || done.isDone());

            // Everything without signal first, so its drops land in version 2's window.
            final List<RewardedGroup> noSignal = new ArrayList<>(groups("stale", 2, 0));
            noSignal.add(Groups.zeroAdvantage(Groups.group("flat/0/0", 1, 4, vocab)));
            noSignal.add(Groups.notKept(Groups.group("easy/0/0", 1, 4, vocab)));
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, noSignal);
            sendUndecodable(p, run);
            await().atMost(WAIT)
                    .until(
                            () ->
                                    done.isDone()
                                            || count(meters, DEAD_LETTERS) == 1.0
                                                    && meters.get("rwml.trainer.groups.dropped")
                                                                    .tag("reason", "stale")
                                                                    .counter()
                                                                    .count()
                                                            == 2.0
                                                    && meters.get("rwml.trainer.groups.dropped")
                                                                    .tag("reason", "not-kept")
                                                                    .counter()
                                                                    .count()
                                                            == 1.0
                                                    && meters.get("rwml.trainer.groups.dropped")
                                                                    .tag("reason", "zero-advantage")
                                                                    .counter()
                                                                    .count()
                                                            == 1.0);
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, groups("fresh", 4, 1));
            await().atMost(WAIT).until(() -> ledger.versions.size() == 2 || done.isDone());
            loop.close();
            done.get();
        }
        final ModelVersion v2 = ledger.versions.get(1);
        assertThat(v2.getCounters().getDroppedStale()).isEqualTo(2);
        assertThat(v2.getCounters().getSkippedZeroAdvantage()).isEqualTo(1);
        assertThat(v2.getMetrics()).containsEntry("skippedNotKept", 1.0);
        assertThat(ledger.trained).doesNotContain("stale/0/0", "stale/1/0", "flat/0/0", "easy/0/0");
        assertThat(
                        meters.get("rwml.trainer.groups.dropped")
                                .tag("reason", "stale")
                                .counter()
                                .count())
                .isEqualTo(2.0);
        assertThat(count(meters, DEAD_LETTERS)).isEqualTo(1.0);
    }

    @Test
    void shouldKeepGroupsItCannotDecodeWhileTheRegistryIsUnreachableAndTrainThemWhenItIsBack()
            throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final List<RewardedGroup> input = groups("outage", 4, 0);
        try (RegistryProxy registry = RegistryProxy.to(KAFKA.schemaRegistryUrl());
                KafkaProducer<String, byte[]> p =
                        TrainerFixture.rewardsProducer(KAFKA.bootstrapServers());
                TrainerLoop loop =
                        loop(
                                // Few registry attempts per read, so the loop's own retries
                                // (what this checks) come within the wait.
                                config(
                                        run,
                                        Map.of(
                                                "schema.registry.url",
                                                registry.url(),
                                                "schema.registry.retry.max.attempts",
                                                "2")),
                                meters,
                                ledger)) {
            final CompletableFuture<Long> done = start(loop);
            // Bad bytes are the record's fault: dead-lettered while the registry answers.
            sendUndecodable(p, run);
            await().atMost(WAIT).until(() -> done.isDone() || count(meters, DEAD_LETTERS) == 1.0);

            registry.stop();
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, input);
            await().atMost(WAIT)
                    .until(
                            () ->
                                    done.isDone()
                                            || count(meters, DEAD_LETTERS) > 1.0
                                            || count(meters, OUTAGE_RETRIES) >= 2.0);
            assertThat(done).isNotDone();
            assertThat(count(meters, DEAD_LETTERS))
                    .as("groups the trainer could not decode during the outage are kept")
                    .isEqualTo(1.0);
            assertThat(committedOffsets(run)).as("nothing committed past them").isLessThan(2L);

            registry.start();
            await().atMost(WAIT).until(() -> ledger.versions.size() == 1 || done.isDone());
            loop.close();
            assertThat(done.get()).isEqualTo(1L);
        }
        assertThat(ledger.trained).containsExactlyInAnyOrderElementsOf(ids(input));
        assertThat(count(meters, DEAD_LETTERS)).isEqualTo(1.0);
        assertCoversOnce(ledger.versions, 5);
    }

    @Test
    void shouldCommitPastTransactionMarkersSoACaughtUpTrainersLagIsZero() throws Exception {
        final String run = newRun();
        final List<RewardedGroup> skipped = zeroAdvantage(3);
        // The reward stage writes in transactions: each one leaves a marker after its records.
        try (KafkaProducer<String, byte[]> p =
                new KafkaProducer<>(
                        Map.of(
                                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                                "markers-" + run),
                        new StringSerializer(),
                        new ByteArraySerializer())) {
            p.initTransactions();
            for (final RewardedGroup g : skipped) {
                p.beginTransaction();
                TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, List.of(g));
                p.commitTransaction();
            }
        }
        final long end = endOffsets(run);
        assertThat(end).as("3 records and 3 markers").isEqualTo(6L);
        try (TrainerLoop loop = loop(config(run, Map.of()), new Ledger())) {
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> done.isDone() || committedOffsets(run) == end);
            loop.close();
            assertThat(done.get()).isZero();
        }
    }

    @Test
    void shouldCommitTheOffsetsOfSkippedGroupsWithoutAVersionAndCountThemInTheNextOne()
            throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        final TrainerConfig config = config(run, Map.of());
        final List<RewardedGroup> skipped = zeroAdvantage(3);
        skipped.add(Groups.notKept(Groups.group("easy/0/0", 0, 4, vocab)));
        try (KafkaProducer<String, byte[]> p =
                TrainerFixture.rewardsProducer(KAFKA.bootstrapServers())) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, skipped);
            try (TrainerLoop first = loop(config, ledger)) {
                final CompletableFuture<Long> done = start(first);
                await().atMost(WAIT).until(() -> done.isDone() || committedOffsets(run) == 4L);
                first.close();
                assertThat(done.get()).isZero();
            }
            assertThat(ledger.versions).as("no version for groups without signal").isEmpty();

            // A restart resumes after the skipped groups and still accounts for them in v1.
            final List<RewardedGroup> fresh = groups("fresh", 4, 0);
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, fresh);
            try (TrainerLoop second = loop(config, ledger)) {
                final CompletableFuture<Long> done = start(second);
                await().atMost(WAIT).until(() -> ledger.versions.size() == 1 || done.isDone());
                second.close();
                assertThat(done.get()).isEqualTo(1L);
            }
            assertThat(ledger.trained).containsExactlyInAnyOrderElementsOf(ids(fresh));
        }
        final ModelVersion v1 = ledger.versions.get(0);
        assertThat(v1.getCounters().getSkippedZeroAdvantage()).isEqualTo(3);
        assertThat(v1.getMetrics()).containsEntry("skippedNotKept", 1.0);
        assertThat(v1.getCounters().getGroups()).isEqualTo(4);
        assertCoversOnce(ledger.versions, 8);
        assertThat(committedOffsets(run)).isEqualTo(8L);
    }

    @Test
    void shouldTrainOnObservedNextStatesInSftMode() throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        try (KafkaProducer<String, byte[]> p =
                        TrainerFixture.rewardsProducer(KAFKA.bootstrapServers());
                TrainerLoop loop = loop(config(run, Map.of("objective", "sft")), ledger)) {
            TrainerFixture.send(
                    KAFKA.schemaRegistryUrl(),
                    run,
                    p,
                    List.of(
                            Groups.zeroAdvantage(Groups.group("s/0/0", 0, 4, vocab)),
                            Groups.group("s/1/0", 0, 4, vocab),
                            Groups.group("s/2/0", 0, 4, vocab),
                            Groups.group("s/3/0", 0, 4, vocab)));
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> ledger.versions.size() == 1 || done.isDone());
            loop.close();
            done.get();
        }
        assertThat(ledger.versions.get(0).getObjective()).isEqualTo("sft");
        assertThat(ledger.trained).hasSize(4);
        assertThat(ledger.versions.get(0).getMetrics().get("loss")).isPositive();
    }

    @Test
    void shouldRefuseAFirstStepThatCannotFitTheMemoryItMayUseAndLoseNoGroup() throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        try (KafkaProducer<String, byte[]> p =
                TrainerFixture.rewardsProducer(KAFKA.bootstrapServers())) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, groups("m", 4, 0));
        }
        try (TrainerLoop loop =
                loop(config(run, Map.of(ModelRuntime.MEMORY_LIMIT, "1k")), ledger)) {
            assertThat(start(loop))
                    .failsWithin(WAIT)
                    .withThrowableThat()
                    .havingRootCause()
                    .isInstanceOf(UnfitSettingsException.class)
                    .withMessageContaining("the trainer's first step (2 group(s), 8 sequences")
                    .withMessageContaining("gradients and AdamW moments")
                    .withMessageContaining("is allowed (model.memory.limit)")
                    .withMessageContaining("lower groups.per.step or raise mini.batches");
        }
        assertThat(ledger.versions).as("no version from a refused step").isEmpty();

        // the same groups train once the limit allows the step: none was committed or lost
        try (TrainerLoop loop = loop(config(run, Map.of()), ledger)) {
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> ledger.trained.size() == 4 || done.isDone());
            loop.close();
            done.get();
        }
        assertThat(ledger.trained).hasSize(4);
    }

    @Test
    void shouldCutAnOverLongToolResultAndDeadLetterAGroupThatCannotFitInSftMode() throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final RewardedGroup longResult =
                RewardedGroup.newBuilder(Groups.group("tau/long/0", 0, 4, vocab))
                        .setNextKind(NextStateKind.TOOL_RESULT)
                        .setObservedNextState(SftPairsTest.LONG_TOOL_RESULT)
                        .build();
        final List<Integer> contextLong = new ArrayList<>();
        for (int i = 0; i < 255; i++) {
            contextLong.add(1 + i % (vocab - 1));
        }
        final RewardedGroup noRoom =
                RewardedGroup.newBuilder(longResult)
                        .setTransitionId("tau/full/0")
                        .setPromptTokenIds(contextLong)
                        .build();
        final List<RewardedGroup> first = new ArrayList<>(List.of(longResult, noRoom));
        first.addAll(groups("s", 3, 0));
        try (KafkaProducer<String, byte[]> p =
                        TrainerFixture.rewardsProducer(KAFKA.bootstrapServers());
                TrainerLoop loop = loop(config(run, Map.of("objective", "sft")), meters, ledger)) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, first);
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> ledger.versions.size() == 1 || done.isDone());
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, groups("more", 4, 0));
            await().atMost(WAIT).until(() -> ledger.versions.size() == 2 || done.isDone());
            assertThat(done).as("the trainer keeps running").isNotDone();
            loop.close();
            done.get();
        }
        assertThat(ledger.trained).contains("tau/long/0", "more/3/0").doesNotContain("tau/full/0");
        assertThat(count(meters, DEAD_LETTERS)).isEqualTo(1.0);
        assertThat(deadLetterMessages(run))
                .singleElement()
                .asString()
                .contains("tau/full/0")
                .contains("does not fit the model's context of 256 tokens");
    }

    @Test
    void shouldDeadLetterAGroupClaimingAVersionThisRunNeverPublished() throws Exception {
        final String run = newRun();
        final Ledger ledger = new Ledger();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final RewardedGroup future =
                RewardedGroup.newBuilder(Groups.group("future/0/0", 99, 4, vocab))
                        .setRun(run)
                        .setGeneratingRun(run)
                        .build();
        final List<RewardedGroup> first = new ArrayList<>(List.of(future));
        first.addAll(groups("a", 4, 0));
        try (KafkaProducer<String, byte[]> p =
                        TrainerFixture.rewardsProducer(KAFKA.bootstrapServers());
                TrainerLoop loop = loop(config(run, Map.of()), meters, ledger)) {
            TrainerFixture.send(KAFKA.schemaRegistryUrl(), run, p, first);
            final CompletableFuture<Long> done = start(loop);
            await().atMost(WAIT).until(() -> ledger.versions.size() == 1 || done.isDone());
            assertThat(done).as("the trainer keeps running").isNotDone();
            loop.close();
            done.get();
        }
        assertThat(ledger.trained).contains("a/3/0").doesNotContain("future/0/0");
        assertThat(deadLetterMessages(run))
                .singleElement()
                .asString()
                .contains("negative staleness")
                .contains("version 99 of run " + run);
    }

    /**
     * The committed dead letters of the run as text: their Avro strings (the error message among
     * them) are UTF-8 in the record bytes.
     */
    private static List<String> deadLetterMessages(final String run) {
        final String topic = TopicCatalog.defaults().run(run).deadLetters().name();
        final Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "dlq-reader-" + run);
        final List<String> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            await().atMost(WAIT)
                    .until(
                            () -> {
                                c.poll(Duration.ofMillis(200))
                                        .forEach(
                                                r ->
                                                        out.add(
                                                                new String(
                                                                        r.value(),
                                                                        StandardCharsets.UTF_8)));
                                return !out.isEmpty();
                            });
        }
        return out;
    }

    private static double count(final SimpleMeterRegistry meters, final String name) {
        return Meters.total(meters.find(name));
    }

    /** The end offsets of the run's rewards, summed over partitions. */
    private static long endOffsets(final String run) throws Exception {
        return KAFKA.endOffsets(TopicCatalog.defaults().run(run).rewards().name()).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private static long committedOffsets(final String run) throws Exception {
        try (Admin admin = KAFKA.admin()) {
            return admin
                    .listConsumerGroupOffsets(TrainerLoop.transactionalId(run))
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .values()
                    .stream()
                    .filter(java.util.Objects::nonNull)
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        }
    }

    private static List<String> ids(final List<RewardedGroup> groups) {
        return groups.stream().map(RewardedGroup::getTransitionId).toList();
    }

    /** Lineage ranges of consecutive versions touch and never overlap, and cover every record. */
    private static void assertCoversOnce(final List<ModelVersion> versions, final long records) {
        final Map<Integer, Long> next = new HashMap<>();
        long covered = 0;
        for (final ModelVersion v : versions) {
            for (final OffsetRange r : v.getLineage()) {
                final long expectedFrom = next.getOrDefault(r.getPartition(), 0L);
                assertThat(r.getFromOffset())
                        .as(
                                "version %d partition %d starts where the last range ended",
                                v.getVersion(), r.getPartition())
                        .isEqualTo(expectedFrom);
                next.put(r.getPartition(), r.getUntilOffset());
                covered += r.getUntilOffset() - r.getFromOffset();
            }
        }
        assertThat(covered).isEqualTo(records);
        assertThat(
                        Collections.max(
                                        versions,
                                        java.util.Comparator.comparingLong(
                                                ModelVersion::getVersion))
                                .getVersion())
                .isEqualTo(versions.size());
    }
}
