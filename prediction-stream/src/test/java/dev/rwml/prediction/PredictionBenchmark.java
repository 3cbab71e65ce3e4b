package dev.rwml.prediction;

import static org.awaitility.Awaitility.await;

import dev.rwml.channel.ChunkObserver;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.TrainingCounters;
import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.settings.HttpAccess;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.serving.ServeApp;
import dev.rwml.serving.ServeConfig;
import dev.rwml.serving.ServeLimits;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.ModelRuntime;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Groups/s and tokens/s of the prediction stage on the embedded broker against the same world model
 * generating the same prompts in a plain loop, in batches of the same size, in this JVM; and the
 * stage once more with {@code sampler=remote} through {@code rwml serve} (its server and follower
 * in this JVM, over loopback HTTP), beside the stage sampling in-process.
 */
class PredictionBenchmark {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final Logger LOG = LoggerFactory.getLogger(PredictionBenchmark.class);
    private static final int TRANSITIONS = 96;
    private static final int WARMUP = 16;
    private static final int BATCH = 8;
    private static final int GROUP = 8;
    private static final int NEW_TOKENS = 32;

    @TempDir Path stateDir;

    @Test
    void streamVersusPlainLoop() {
        // The same PyTorch threads as the stage's default model.threads=1, set before first use.
        DjlRuntime.configureThreads(1, 1);
        final Checkpoint checkpoint =
                TinyWorldModels.checkpoint(0, 7, ModelConfig.small(TinyWorldModels.vocabSize()));
        final List<Transition> warmup = transitions("warmup", WARMUP);
        final List<Transition> measured = transitions("measured", TRANSITIONS);

        // Loop before and after the stream, so load from elsewhere on the machine shows as a
        // spread between the two loop figures rather than skewing the ratio unseen.
        final double[] before = plainLoop(checkpoint, warmup, measured);
        final double[] stream = throughStream(checkpoint, warmup, measured, false);
        final double[] served = throughStream(checkpoint, warmup, measured, true);
        final double[] after = plainLoop(checkpoint, warmup, measured);
        final double[] loop = {(before[0] + after[0]) / 2, (before[1] + after[1]) / 2};

        LOG.info(
                "PredictionBenchmark ({} transitions, batch {}, G {}, {} new tokens, d128 L2):"
                        + " plain loop {} groups/s {} tokens/s (before {}, after {} groups/s);"
                        + " stream {} groups/s {} tokens/s; ratio groups {} tokens {};"
                        + " stream through rwml serve {} groups/s {} tokens/s, {} of the stream"
                        + " sampling in-process (goal 0.8)",
                TRANSITIONS,
                BATCH,
                GROUP,
                NEW_TOKENS,
                fmt(loop[0]),
                fmt(loop[1]),
                fmt(before[0]),
                fmt(after[0]),
                fmt(stream[0]),
                fmt(stream[1]),
                fmt(stream[0] / loop[0]),
                fmt(stream[1] / loop[1]),
                fmt(served[0]),
                fmt(served[1]),
                fmt(served[0] / stream[0]));
    }

    private static List<Transition> transitions(final String episode, final int count) {
        final List<Transition> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(TinyWorldModels.transition(episode, i, "next " + i, i % 3));
        }
        return out;
    }

    /** Returns {groups/s, tokens/s} of generating the prompts in batches in a plain loop. */
    private static double[] plainLoop(
            final Checkpoint checkpoint,
            final List<Transition> warmup,
            final List<Transition> measured) {
        final SamplingSettings sampling = new SamplingSettings(GROUP, 1f, 1f, NEW_TOKENS);
        try (CheckpointModelLoader loader = CheckpointModelLoader.standard();
                PredictionModel model = loader.fromCheckpoint(0, checkpoint)) {
            generate(model, warmup, sampling);
            final long start = System.nanoTime();
            final long tokens = generate(model, measured, sampling);
            final double seconds = (System.nanoTime() - start) / 1e9;
            return new double[] {measured.size() / seconds, tokens / seconds};
        }
    }

    private static long generate(
            final PredictionModel model,
            final List<Transition> transitions,
            final SamplingSettings sampling) {
        long tokens = 0;
        for (int from = 0; from < transitions.size(); from += BATCH) {
            final List<int[]> prompts = new ArrayList<>();
            for (final Transition t : transitions.subList(from, from + BATCH)) {
                prompts.add(model.prompt(t, 512).tokenIds());
            }
            for (final List<Sample> group : model.sample(prompts, sampling, from)) {
                for (final Sample sample : group) {
                    tokens += sample.tokenIds().length;
                }
            }
        }
        return tokens;
    }

    /**
     * Returns {groups/s, tokens/s} of the prediction stage from produce to generated groups,
     * sampling in-process or, when {@code remote}, through {@code rwml serve} of the same run.
     */
    private double[] throughStream(
            final Checkpoint checkpoint,
            final List<Transition> warmup,
            final List<Transition> measured,
            final boolean remote) {
        final String run = "bench-" + UUID.randomUUID().toString().substring(0, 8);
        final TopicCatalog catalog = TopicCatalog.defaults();
        final Map<String, String> registry = EventSerdes.registryConfig(KAFKA.schemaRegistryUrl());
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(run));
        }
        final Map<String, Object> producerConfig = new HashMap<>();
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        final Serializer<Transition> values =
                catalog.transitions().valueSerde(registry).serializer();
        try (ModelChannel channel =
                        ModelChannel.of(
                                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()),
                                run);
                KafkaProducer<byte[], byte[]> models =
                        new KafkaProducer<>(channel.producerConfig("bench-" + run));
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
            models.initTransactions();
            models.beginTransaction();
            ModelPublisher.chunked(channel)
                    .publish(
                            models,
                            ModelVersion.newBuilder()
                                    .setRun(run)
                                    .setVersion(0)
                                    .setCreatedAt(Instant.now())
                                    .setObjective("init")
                                    .setCounters(TrainingCounters.newBuilder().build()),
                            Checkpoint.FORMAT,
                            checkpoint.toBytes(),
                            ChunkObserver.NONE);
            models.commitTransaction();
            final Connection connection =
                    Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl());
            final ServeApp.Running server =
                    remote
                            ? ServeApp.start(
                                    new ServeConfig(
                                            run,
                                            OptionalLong.empty(),
                                            HttpAccess.LOOPBACK,
                                            0,
                                            Optional.empty(),
                                            ServeLimits.defaults(),
                                            new ModelRuntime(1, "cpu"),
                                            connection),
                                    new SimpleMeterRegistry(),
                                    () -> "",
                                    CheckpointModelLoader.standard())
                            : null;
            final PredictionConfig stage =
                    PredictionConfig.defaults(
                                    run, KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl())
                            .with(
                                    Map.of(
                                            "start.from", Instant.now().toString(),
                                            "batch.size", Integer.toString(BATCH),
                                            "group.size", Integer.toString(GROUP),
                                            "sampling.max.new.tokens", Integer.toString(NEW_TOKENS),
                                            // All partitions in one task set: one batch per task.
                                            "batch.max.wait", "PT0.05S",
                                            "state.dir", stateDir.resolve(run).toString()));
            final PredictionConfig config =
                    remote
                            ? stage.with(
                                    Map.of(
                                            "sampler",
                                            "remote",
                                            "sampler.url",
                                            server.uri("").toString()))
                            : stage;
            try (server;
                    PredictionStage app =
                            PredictionApp.start(
                                    config,
                                    new SimpleMeterRegistry(),
                                    PredictionApp.loader(config))) {
                send(producer, values, warmup);
                await().atMost(Duration.ofMinutes(5))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> app.metrics().groupCount() >= warmup.size());
                final double tokensBefore = app.metrics().tokenCount();
                final long start = System.nanoTime();
                send(producer, values, measured);
                await().atMost(Duration.ofMinutes(5))
                        .pollInterval(Duration.ofMillis(5))
                        .until(() -> app.metrics().groupCount() >= warmup.size() + measured.size());
                final double seconds = (System.nanoTime() - start) / 1e9;
                final double tokens = app.metrics().tokenCount() - tokensBefore;
                return new double[] {measured.size() / seconds, tokens / seconds};
            }
        }
    }

    private static void send(
            final KafkaProducer<byte[], byte[]> producer,
            final Serializer<Transition> values,
            final List<Transition> transitions) {
        for (final Transition t : transitions) {
            producer.send(
                    new ProducerRecord<>(
                            TopicCatalog.TRANSITIONS,
                            t.getTransitionId().getBytes(StandardCharsets.UTF_8),
                            values.serialize(TopicCatalog.TRANSITIONS, t)));
        }
        producer.flush();
    }

    private static String fmt(final double value) {
        return String.format(java.util.Locale.ROOT, "%.2f", value);
    }
}
