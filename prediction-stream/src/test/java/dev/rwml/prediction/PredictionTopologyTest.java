package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.channel.ModelSlot;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.Transition;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The prediction topology driven by TopologyTestDriver with a real tiny DJL world model. */
class PredictionTopologyTest {

    private static final String MARKER = "ZQX-NEXT-OBSERVATION-MARKER-7781";
    private static final String SCOPE = "prediction-ttd-" + UUID.randomUUID();
    private static final String REGISTRY = "mock://" + SCOPE;
    private static final TopicCatalog CATALOG = TopicCatalog.defaults();
    private static final RunTopics TOPICS = CATALOG.run("ttd");

    private static CheckpointModelLoader loader;

    @TempDir Path stateDir;

    private TopologyTestDriver driver;
    private ModelSlot slot;
    private GenerationGate gate = GenerationGate.unpaced();
    private SimpleMeterRegistry meters;
    private TestInputTopic<String, Transition> transitions;
    private TestInputTopic<String, byte[]> rawTransitions;
    private TestOutputTopic<String, PredictionGroup> predictions;
    private TestOutputTopic<byte[], DeadLetter> deadLetters;

    @BeforeAll
    static void loadModels() {
        loader = CheckpointModelLoader.standard();
    }

    @AfterAll
    static void closeModels() {
        loader.close();
        MockSchemaRegistry.dropScope(SCOPE);
    }

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
        slot.close();
    }

    private PredictionConfig config(final Map<String, String> overrides) {
        final Map<String, String> values = new HashMap<>();
        values.put("batch.size", "1");
        values.put("group.size", "2");
        values.put("sampling.max.new.tokens", "6");
        values.put("batch.max.wait", "PT0.1S");
        values.put("prompt.max.tokens", "400");
        values.put("state.dir", stateDir.toString());
        values.putAll(overrides);
        return PredictionConfig.defaults("ttd", "unused:9092", REGISTRY).with(values);
    }

    private void start(final PredictionConfig config) {
        start(config, EventSerdes.registryConfig(REGISTRY));
    }

    /** Starts the topology reading transitions through {@code transitionsRegistry}. */
    private void start(final PredictionConfig config, final Map<String, ?> transitionsRegistry) {
        slot = new ModelSlot();
        slot.install(loader.fromCheckpoint(0, TinyWorldModels.checkpoint(0, 11)));
        meters = new SimpleMeterRegistry();
        final Map<String, String> registry = EventSerdes.registryConfig(REGISTRY);
        final PredictionTopology.Wiring wiring =
                new PredictionTopology.Wiring(
                        TopicCatalog.TRANSITIONS,
                        TOPICS,
                        CATALOG.transitions().valueSerde(transitionsRegistry).deserializer(),
                        TOPICS.predictions().valueSerde(registry).serializer(),
                        TOPICS.deadLetters().valueSerde(registry).serializer());
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver =
                new TopologyTestDriver(
                        PredictionTopology.build(
                                config,
                                wiring,
                                slot,
                                gate,
                                new PredictionMetrics(meters, "ttd", slot),
                                Clock.systemUTC()),
                        props);
        transitions =
                driver.createInputTopic(
                        TopicCatalog.TRANSITIONS,
                        new StringSerializer(),
                        CATALOG.transitions().valueSerde(registry).serializer());
        rawTransitions =
                driver.createInputTopic(
                        TopicCatalog.TRANSITIONS,
                        new StringSerializer(),
                        new ByteArraySerializer());
        predictions =
                driver.createOutputTopic(
                        TOPICS.predictions().name(),
                        new StringDeserializer(),
                        TOPICS.predictions().valueSerde(registry).deserializer());
        deadLetters =
                driver.createOutputTopic(
                        TOPICS.deadLetters().name(),
                        new ByteArrayDeserializer(),
                        TOPICS.deadLetters().valueSerde(registry).deserializer());
    }

    private void pipe(final Transition transition) {
        transitions.pipeInput(transition.getTransitionId(), transition);
    }

    private String decode(final List<Integer> ids) {
        try (ModelSlot.Lease lease = slot.acquire()) {
            return lease.model().decode(ids.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    private int promptLength(final Transition transition) {
        try (ModelSlot.Lease lease = slot.acquire()) {
            final Prompt prompt = lease.model().prompt(transition, 100_000);
            return prompt.tokenIds().length;
        }
    }

    @Test
    void shouldBuildThePromptWithoutTheNextObservation() {
        start(config(Map.of()));

        pipe(TinyWorldModels.transition("e1", 3, MARKER, 2));

        final PredictionGroup group = predictions.readValue();
        final String prompt = decode(group.getPromptTokenIds());
        assertThat(prompt)
                .doesNotContain(MARKER)
                .contains("Task: put a clean apple in the fridge.")
                .contains("> go to cabinet 1")
                .contains("Your current observation is: You are in the middle of a room.")
                .contains("Potential action: go to countertop 1");
        assertThat(group.getSamples())
                .allSatisfy(s -> assertThat(s.getText()).doesNotContain(MARKER));
    }

    /** The same transitions sample the same unless sampling.seed differs (bench seeds use it). */
    @Test
    void shouldSampleAlikeForOneSamplingSeedAndApartForAnother() {
        final List<List<Integer>> first = sampledTokens("0");
        assertThat(sampledTokens("0")).isEqualTo(first);
        assertThat(sampledTokens("5")).isNotEqualTo(first);
    }

    private List<List<Integer>> sampledTokens(final String samplingSeed) {
        if (driver != null) {
            driver.close();
            slot.close();
        }
        start(config(Map.of("group.size", "4", "sampling.seed", samplingSeed)));
        final List<List<Integer>> tokens = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pipe(TinyWorldModels.transition("e1", i, "m" + i, i));
            predictions.readValue().getSamples().forEach(p -> tokens.add(p.getTokenIds()));
        }
        return tokens;
    }

    @Test
    void shouldEmitOneGroupOfGSamplesPerTransitionWhenTheBatchFills() {
        start(config(Map.of("batch.size", "3", "group.size", "3")));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));
        pipe(TinyWorldModels.transition("e1", 1, "b", 1));
        assertThat(predictions.isEmpty()).isTrue();
        final KeyValueStore<Long, BufferedRecord> buffer =
                driver.getKeyValueStore(PredictionTopology.BUFFER_STORE);
        assertThat(buffer.approximateNumEntries()).isEqualTo(2);
        pipe(TinyWorldModels.transition("e1", 2, "c", 2));

        final var out = predictions.readKeyValuesToList();
        assertThat(out)
                .extracting(kv -> kv.key)
                .containsExactly("alfworld/e1/0", "alfworld/e1/1", "alfworld/e1/2");
        for (final var kv : out) {
            final PredictionGroup group = kv.value;
            assertThat(group.getTransitionId()).isEqualTo(kv.key);
            assertThat(group.getRun()).isEqualTo("ttd");
            assertThat(group.getModelVersion()).isZero();
            assertThat(group.getSampling().getMaxNewTokens()).isEqualTo(6);
            assertThat(group.getSamples()).hasSize(3);
            for (final PredictionSample sample : group.getSamples()) {
                assertThat(sample.getTokenIds()).isNotEmpty().hasSameSizeAs(sample.getLogprobs());
                assertThat(sample.getLogprobs()).allSatisfy(lp -> assertThat(lp).isNegative());
            }
        }
        assertThat(buffer.approximateNumEntries()).isZero();
        assertThat(meters.get("rwml.prediction.groups").counter().count()).isEqualTo(3);
        assertThat(meters.get("rwml.prediction.batch.size").summary().max()).isEqualTo(3);
        assertThat(meters.get("rwml.prediction.tokens").counter().count()).isPositive();
    }

    @Test
    void shouldFlushAPartialBatchOnceTheOldestHasWaitedTheMaxWait() {
        start(config(Map.of("batch.size", "8", "batch.max.wait", "PT0.1S")));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));
        driver.advanceWallClockTime(Duration.ofMillis(50));
        assertThat(predictions.isEmpty()).isTrue();
        driver.advanceWallClockTime(Duration.ofMillis(60));

        assertThat(predictions.readKeyValue().key).isEqualTo("alfworld/e1/0");
    }

    @Test
    void shouldGenerateNothingUnderAPacedGateUntilARoundOpens() {
        gate = GenerationGate.paced();
        start(config(Map.of("batch.size", "2", "batch.max.wait", "PT0.1S")));

        for (int step = 0; step < 3; step++) {
            pipe(TinyWorldModels.transition("e1", step, "a", 0));
        }
        driver.advanceWallClockTime(Duration.ofSeconds(5));

        assertThat(predictions.isEmpty()).isTrue();
    }

    /**
     * A round is generated in batches formed by count alone, its partial batch once its last record
     * was read, and nothing after it: the batches (and so their seeds) do not depend on timing.
     */
    @Test
    void shouldGenerateExactlyTheOpenRoundInBatchesOfTheBatchSize() {
        gate = GenerationGate.paced();
        start(config(Map.of("batch.size", "2", "batch.max.wait", "PT0.1S")));
        for (int step = 0; step < 5; step++) {
            pipe(TinyWorldModels.transition("e1", step, "a", 0));
        }

        gate.open(new GenerationGate.Round(0, 0, Map.of(0, 2L)));
        driver.advanceWallClockTime(Duration.ofMillis(100));

        assertThat(predictions.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly("alfworld/e1/0", "alfworld/e1/1", "alfworld/e1/2");
        assertThat(meters.get("rwml.prediction.batch.size").summary().count()).isEqualTo(2);
        assertThat(meters.get("rwml.prediction.batch.size").summary().max()).isEqualTo(2);
        assertThat(gate.emitted()).isEqualTo(3);
        assertThat(gate.isSettled(0, 2)).isTrue();
        assertThat(gate.isSettled(0, 3)).as("read, buffered, not generated").isFalse();

        gate.open(new GenerationGate.Round(1, 0, Map.of(0, 6L)));
        driver.advanceWallClockTime(Duration.ofMillis(100));
        assertThat(predictions.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly("alfworld/e1/3", "alfworld/e1/4");

        pipe(TinyWorldModels.transition("e1", 5, "a", 0));
        driver.advanceWallClockTime(Duration.ofSeconds(5));
        assertThat(predictions.isEmpty())
                .as("a partial batch waits for the round's last record, whatever the time")
                .isTrue();
        pipe(TinyWorldModels.transition("e1", 6, "a", 0));
        assertThat(predictions.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly("alfworld/e1/5", "alfworld/e1/6");
    }

    @Test
    void shouldSettleARecordItSkipsSoThatItsRoundCanEnd() {
        gate = GenerationGate.paced();
        start(config(Map.of("batch.size", "2", "select.splits", "valid_seen")));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));

        assertThat(gate.isSettled(0, 0)).isTrue();
        assertThat(gate.emitted()).isZero();
    }

    @Test
    void shouldWaitForTheRoundsVersionBeforeGenerating() {
        gate = GenerationGate.paced();
        start(config(Map.of("batch.size", "2")));
        pipe(TinyWorldModels.transition("e1", 0, "a", 0));

        gate.open(new GenerationGate.Round(0, 1, Map.of(0, 0L)));
        driver.advanceWallClockTime(Duration.ofSeconds(1));
        assertThat(predictions.isEmpty()).as("version 0 serves, the round needs 1").isTrue();

        slot.install(loader.fromCheckpoint(1, TinyWorldModels.checkpoint(1, 12)));
        driver.advanceWallClockTime(Duration.ofMillis(100));
        assertThat(predictions.readValue().getModelVersion()).isEqualTo(1);
    }

    @Test
    void shouldRouteUndecodableBytesToTheDeadLetterTopicAndKeepProcessing() {
        start(config(Map.of()));
        final byte[] garbage = "not avro at all".getBytes(StandardCharsets.UTF_8);

        rawTransitions.pipeInput("alfworld/e9/0", garbage);
        pipe(TinyWorldModels.transition("e1", 0, "a", 0));

        final var letter = deadLetters.readRecord();
        assertThat(new String(letter.key(), StandardCharsets.UTF_8)).isEqualTo("alfworld/e9/0");
        assertThat(letter.value().getStage()).isEqualTo(StageName.PREDICTION.id());
        assertThat(letter.value().getErrorClass())
                .isEqualTo(EventDecodingException.class.getName());
        assertThat(letter.value().getSourceTopic()).isEqualTo(TopicCatalog.TRANSITIONS);
        assertThat(letter.value().getOriginalValue()).isEqualTo(ByteBuffer.wrap(garbage));
        assertThat(letter.headers().lastHeader(DeadLetters.REASON_HEADER).value())
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("WRONG_MAGIC_BYTE");
        assertThat(predictions.readKeyValue().key).isEqualTo("alfworld/e1/0");
        assertThat(
                        meters.get("rwml.prediction.dead.letters")
                                .tag("reason", "WRONG_MAGIC_BYTE")
                                .counter()
                                .count())
                .isEqualTo(1);
    }

    /** A second record with an id already predicted would be rewarded twice downstream. */
    @Test
    void shouldDeadLetterASecondTransitionWithTheSameId() {
        start(config(Map.of()));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));
        pipe(TinyWorldModels.transition("e1", 0, "a", 0));
        pipe(TinyWorldModels.transition("e1", 1, "b", 1));

        assertThat(predictions.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly("alfworld/e1/0", "alfworld/e1/1");
        assertThat(deadLetters.readValue().getErrorMessage())
                .contains(
                        "duplicate transition id alfworld/e1/0: first read at partition 0 offset 0,"
                                + " again at partition 0 offset 1");
        assertThat(deadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldDeadLetterATransitionWhoseKeyIsNotItsId() {
        start(config(Map.of()));

        transitions.pipeInput("some-other-key", TinyWorldModels.transition("e1", 0, "a", 0));

        assertThat(deadLetters.readValue().getErrorMessage())
                .contains("differs from transitionId 'alfworld/e1/0'");
        assertThat(predictions.isEmpty()).isTrue();
    }

    @Test
    void shouldSkipTransitionsOutsideTheSelectedEnvsAndSplits() {
        start(config(Map.of("select.envs", "retail,alfworld", "select.splits", "valid_seen")));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));

        assertThat(predictions.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(meters.get("rwml.prediction.skipped").tag("reason", "split").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldDropTheOldestHistoryTurnWhenThePromptIsTooLong() {
        start(config(Map.of()));
        final Transition full = TinyWorldModels.transition("e1", 5, "a", 2);
        final Transition oneTurn = TinyWorldModels.transition("e1", 5, "a", 1);
        final int limit = promptLength(oneTurn);
        assertThat(promptLength(full)).isGreaterThan(limit);
        close();

        start(config(Map.of("prompt.max.tokens", Integer.toString(limit))));
        pipe(full);

        final PredictionGroup group = predictions.readValue();
        assertThat(group.getPromptTokenIds()).hasSizeLessThanOrEqualTo(limit);
        assertThat(decode(group.getPromptTokenIds()))
                .contains("go to cabinet 1")
                .doesNotContain("go to cabinet 0");
        assertThat(meters.get("rwml.prediction.history.truncated").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldLeaveEveryCompletionItsNewTokensWhenPromptMaxTokensIsTheWholeContext() {
        start(config(Map.of()));
        final Transition full = TinyWorldModels.transition("e1", 5, "a", 2);
        final int limit = promptLength(TinyWorldModels.transition("e1", 5, "a", 1));
        assertThat(promptLength(full)).isGreaterThan(limit);
        close();

        // The tiny model's context is 512: a whole completion leaves exactly `limit` for the
        // prompt.
        start(
                config(
                        Map.of(
                                "prompt.max.tokens",
                                "512",
                                "sampling.max.new.tokens",
                                Integer.toString(512 - limit))));
        pipe(full);

        final PredictionGroup group = predictions.readValue();
        assertThat(group.getPromptTokenIds()).hasSizeLessThanOrEqualTo(limit);
        assertThat(meters.get("rwml.prediction.history.truncated").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterAnOverLongPromptWhenThePolicySaysSo() {
        start(config(Map.of()));
        final Transition full = TinyWorldModels.transition("e1", 5, "a", 2);
        final int limit = promptLength(TinyWorldModels.transition("e1", 5, "a", 1));
        close();

        start(
                config(
                        Map.of(
                                "prompt.max.tokens",
                                Integer.toString(limit),
                                "prompt.over.length",
                                "dead-letter")));
        pipe(full);

        assertThat(predictions.isEmpty()).isTrue();
        assertThat(deadLetters.readValue().getErrorMessage())
                .contains("prompt.max.tokens=" + limit);
    }

    @Test
    void shouldSkipRecordsAtOrAfterTheStopOffsetOfTheirPartition() {
        start(config(Map.of("stop.at", "0:1")));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));
        pipe(TinyWorldModels.transition("e1", 1, "b", 0));

        assertThat(predictions.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly("alfworld/e1/0");
        assertThat(
                        meters.get("rwml.prediction.skipped")
                                .tag("reason", "after-stop")
                                .counter()
                                .count())
                .isEqualTo(1);
    }

    @Test
    void shouldServeANewModelVersionFromTheNextBatch() {
        start(config(Map.of()));

        pipe(TinyWorldModels.transition("e1", 0, "a", 0));
        slot.install(loader.fromCheckpoint(1, TinyWorldModels.checkpoint(1, 12)));
        pipe(TinyWorldModels.transition("e1", 1, "b", 0));

        assertThat(predictions.readValuesToList())
                .extracting(PredictionGroup::getModelVersion)
                .containsExactly(0L, 1L);
        assertThat(meters.get("rwml.prediction.model.version").gauge().value()).isEqualTo(1.0);
    }

    @Test
    void shouldStopTheThreadRatherThanDeadLetterWhenTheRegistryIsUnreachable() throws IOException {
        final int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        start(
                config(Map.of()),
                Map.of(
                        RegistryConfig.URL,
                        "http://127.0.0.1:" + closedPort,
                        RegistryConfig.MAX_ATTEMPTS,
                        "1"));

        assertThatThrownBy(() -> pipe(TinyWorldModels.transition("e1", 0, "a", 0)))
                .isInstanceOf(StreamsException.class)
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isTrue());
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(predictions.isEmpty()).isTrue();
    }

    @Test
    void shouldStopTheThreadRatherThanDeadLetterWhenGenerationMeetsAnOutage() {
        start(config(Map.of()));
        slot.install(
                new TimingOutModel(loader.fromCheckpoint(1, TinyWorldModels.checkpoint(1, 11))));

        assertThatThrownBy(() -> pipe(TinyWorldModels.transition("e1", 0, "a", 0)))
                .isInstanceOf(StreamsException.class)
                .satisfies(e -> assertThat(ErrorPolicy.isOutage(e)).isTrue());
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(predictions.isEmpty()).isTrue();
    }

    /** A model whose generation backend times out, as a remote or shared one can. */
    private record TimingOutModel(PredictionModel delegate) implements PredictionModel {
        @Override
        public long version() {
            return delegate.version();
        }

        @Override
        public int maxContext() {
            return delegate.maxContext();
        }

        @Override
        public Prompt prompt(final Transition transition, final int maxTokens) {
            return delegate.prompt(transition, maxTokens);
        }

        @Override
        public String decode(final int[] tokenIds) {
            return delegate.decode(tokenIds);
        }

        @Override
        public List<List<Sample>> sample(
                final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
            throw new IllegalStateException(
                    "generation backend did not answer", new TimeoutException("after 30 s"));
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
