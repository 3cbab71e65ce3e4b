package dev.rwml.reward;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Transition;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.CachingEmbedder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;

/** The reward topology on a {@link TopologyTestDriver}, with its input and output topics. */
abstract class RewardTopologyHarness {

    protected TopologyTestDriver driver;
    protected MeterRegistry meters;
    protected RewardMetrics metrics;
    protected TestInputTopic<String, Transition> transitions;
    protected TestInputTopic<String, PredictionGroup> predictions;
    protected TestOutputTopic<String, RewardedGroup> rewards;
    protected TestOutputTopic<byte[], DeadLetter> deadLetters;

    /**
     * Starts the topology of {@code config}, its serdes on {@code topologyRegistry}; the test's
     * topics use the config's own registry.
     */
    protected void startTopology(
            final RewardConfig config,
            final Map<String, ?> topologyRegistry,
            final CachingEmbedder embedder) {
        meters = new SimpleMeterRegistry();
        metrics = new RewardMetrics(meters, config.run());
        final Map<String, Object> registry = RewardApp.registryConfig(config);
        driver =
                new TopologyTestDriver(
                        RewardTopology.build(
                                config,
                                RewardApp.wiring(config, topologyRegistry),
                                RewardApp.rewarder(config, embedder, metrics),
                                metrics,
                                Clock.systemUTC()),
                        RewardApp.streamsProperties(config, metrics));
        final TopicCatalog catalog = TopicCatalog.defaults();
        transitions =
                driver.createInputTopic(
                        TopicCatalog.TRANSITIONS,
                        new StringSerializer(),
                        EventSerdes.forValue(Transition.class, registry).serializer());
        predictions =
                driver.createInputTopic(
                        catalog.run(config.sourceRun()).predictions().name(),
                        new StringSerializer(),
                        EventSerdes.forValue(PredictionGroup.class, registry).serializer());
        rewards =
                driver.createOutputTopic(
                        catalog.run(config.run()).rewards().name(),
                        Serdes.String().deserializer(),
                        EventSerdes.forValue(RewardedGroup.class, registry).deserializer());
        deadLetters =
                driver.createOutputTopic(
                        catalog.run(config.run()).deadLetters().name(),
                        Serdes.ByteArray().deserializer(),
                        EventSerdes.forValue(DeadLetter.class, registry).deserializer());
    }

    /** Pipes an alfworld transition whose next state is {@link Fixtures#FRIDGE}. */
    protected void pipeTransition(final String id, final Instant at) {
        transitions.pipeInput(id, Fixtures.transition(id, "alfworld", Fixtures.FRIDGE), at);
    }

    @AfterEach
    void closeDriver() {
        if (driver != null) {
            driver.close();
        }
    }

    protected static String reason(final TestRecord<byte[], DeadLetter> letter) {
        return new String(
                letter.headers().lastHeader(DeadLetters.REASON_HEADER).value(),
                StandardCharsets.UTF_8);
    }
}
