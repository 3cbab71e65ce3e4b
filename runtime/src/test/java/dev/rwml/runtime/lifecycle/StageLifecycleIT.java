package dev.rwml.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.registry.RegistryUnreachableException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stage lifecycle on a real broker: a Streams stage whose records keep failing stops with exit
 * 1 and its reason, an outage is waited out without counting as a crash, and a stage whose cluster
 * is unreachable stops once the broker timeout has passed.
 */
class StageLifecycleIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    @TempDir Path state;

    @Test
    void shouldExitNonZeroWithTheReasonWhenTheStreamThreadsKeepDying() throws Exception {
        final String topic = topic();
        final Stage stage = stage(topic, n -> new IllegalStateException("bad record " + n), 1);
        send(topic);

        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit =
                StageRunner.run(
                        stage, connection(), Duration.ofMinutes(5), new PrintStream(err, true));

        assertThat(exit).isEqualTo(StageRunner.EXIT_FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("rwml reward: reward stage stopped")
                .contains("bad record");
        assertThat(stage.crashes.get()).as("one restart allowed, then it gives up").isEqualTo(2);
    }

    @Test
    void shouldWaitOutAnOutageWithoutGivingUpAndThenProcessTheRecord() throws Exception {
        final String topic = topic();
        final Stage stage =
                stage(
                        topic,
                        n ->
                                n <= 2
                                        ? new RuntimeException(
                                                "decode",
                                                new RegistryUnreachableException(
                                                        "http://registry:8081", 5, null))
                                        : null,
                        0);
        send(topic);
        try {
            // The dying stream threads are expected: Streams hands them to the lifecycle's handler.
            await().dontCatchUncaughtExceptions()
                    .atMost(Duration.ofSeconds(90))
                    .until(() -> stage.processed.get() == 1);
            assertThat(stage.crashes.get()).as("two outages, none counted").isEqualTo(2);
            assertThat(stage.termination().isDone()).isFalse();
        } finally {
            stage.close();
        }
    }

    @Test
    void shouldExitNonZeroOnceKafkaIsUnreachableForTheBrokerTimeout() {
        final Stage idle = new Stage();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final long started = System.nanoTime();

        final int exit =
                StageRunner.run(
                        idle,
                        Connection.of("127.0.0.1:1", "mock://unused"),
                        Duration.ofSeconds(3),
                        new PrintStream(err, true));

        assertThat(exit).isEqualTo(StageRunner.EXIT_FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("cannot reach Kafka at 127.0.0.1:1");
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .isLessThan(Duration.ofSeconds(30));
        assertThat(idle.closed).as("the stage is closed before run returns").isTrue();
    }

    /** A minimal stage: a Streams app whose processing fails as {@code failure} says. */
    private static final class Stage implements RunningStage {
        final AtomicInteger crashes = new AtomicInteger();
        final AtomicInteger processed = new AtomicInteger();
        private final KafkaStreams streams;
        private final CompletableFuture<Void> termination;
        volatile boolean closed;

        Stage() {
            streams = null;
            termination = new CompletableFuture<>();
        }

        Stage(final KafkaStreams streams, final CompletableFuture<Void> termination) {
            this.streams = streams;
            this.termination = termination;
        }

        @Override
        public StageName name() {
            return StageName.REWARD;
        }

        @Override
        public CompletableFuture<Void> termination() {
            return termination;
        }

        @Override
        public void close() {
            closed = true;
            if (streams != null) {
                streams.close(Duration.ofSeconds(30));
            }
            termination.complete(null);
        }
    }

    private Stage stage(
            final String topic,
            final java.util.function.IntFunction<RuntimeException> failure,
            final int maxRestarts) {
        final AtomicInteger attempts = new AtomicInteger();
        final Stage[] holder = new Stage[1];
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(topic, Consumed.with(Serdes.String(), Serdes.String()))
                .foreach(
                        (key, value) -> {
                            final RuntimeException error =
                                    failure.apply(attempts.incrementAndGet());
                            if (error != null) {
                                holder[0].crashes.incrementAndGet();
                                throw error;
                            }
                            holder[0].processed.incrementAndGet();
                        });
        final KafkaStreams streams =
                new KafkaStreams(
                        builder.build(),
                        connection()
                                .kafkaProperties(
                                        Map.of(
                                                StreamsConfig.APPLICATION_ID_CONFIG,
                                                "lifecycle-" + UUID.randomUUID(),
                                                StreamsConfig.STATE_DIR_CONFIG,
                                                state.toString(),
                                                StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                                                StreamsConfig.EXACTLY_ONCE_V2,
                                                "consumer.auto.offset.reset",
                                                "earliest",
                                                // A replaced thread's old member leaves the group
                                                // at its session timeout: keep that short here.
                                                "consumer.session.timeout.ms",
                                                "6000",
                                                "consumer.heartbeat.interval.ms",
                                                "1000")));
        final CompletableFuture<Void> termination =
                StreamsLifecycle.watch(
                        streams,
                        new RestartPolicy(maxRestarts, Duration.ofMinutes(10), Clock.systemUTC()),
                        StageName.REWARD);
        holder[0] = new Stage(streams, termination);
        streams.start();
        return holder[0];
    }

    private static Connection connection() {
        return Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl());
    }

    private static String topic() throws Exception {
        final String topic = "lifecycle-" + UUID.randomUUID();
        try (Admin admin = connection().admin()) {
            admin.createTopics(java.util.List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        return topic;
    }

    private static void send(final String topic) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        connection().kafkaConfig(Map.of()),
                        new StringSerializer(),
                        new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get();
        }
    }
}
