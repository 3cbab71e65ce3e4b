package dev.rwml.channel;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelVersion;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.ArtifactStore;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a run's {@code rwml.<run>.models} topic (read_committed, from the beginning) on a
 * background thread and hands each newer version whose artifact verifies to a listener, which
 * hot-swaps the model. A version whose bytes do not match its manifest (a flipped byte, a missing
 * chunk, a wrong SHA-256) or that the listener cannot load is rejected with a logged error and
 * counted, and the current version stays; a follower that serves a stage also dead-letters the
 * version's manifest on {@code rwml.<run>.dead-letters} with reason {@value
 * DeadLetters#MODEL_REJECTED} and what was wrong, so {@code rwml status} and {@code rwml dlq} show
 * it (once per follower start: a restarted stage that meets the same version reports it again).
 * Until version 0 exists it reports {@code waiting for version 0 of run R}.
 */
public final class ModelFollower implements AutoCloseable {

    /** Installs a newer version; runs on the follower's thread, one version at a time. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Installs {@code artifact}; {@code versions} fetches other versions of the run (an
         * adapter's base) on this thread. Throwing keeps the previous version.
         */
        void install(VerifiedArtifact artifact, ArtifactSource versions);
    }

    private static final Logger LOG = LoggerFactory.getLogger(ModelFollower.class);
    private static final Duration WAIT_LOG_EVERY = Duration.ofSeconds(30);

    private final ModelChannel channel;
    private final ModelChannelReader reader;
    private final Listener listener;
    private final Duration pollTimeout;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private final AtomicLong current = new AtomicLong(-1);
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicReference<String> status = new AtomicReference<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Set<Long> rejectedVersions = new HashSet<>();
    private final Optional<DeadLetterWriter> deadLetters;
    private final EventSerde<DeadLetter> deadLetterSerde;
    private KafkaProducer<byte[], byte[]> deadLetterProducer;
    private volatile boolean running = true;

    private ModelFollower(
            final ModelChannel channel,
            final Optional<ArtifactStore> store,
            final Listener listener,
            final Duration pollTimeout,
            final Optional<StageName> stage) {
        this.channel = Objects.requireNonNull(channel, "channel");
        // Not counted with the stage's dead letters, which are its input records: rejectedCount()
        // counts rejected versions.
        this.deadLetters =
                Objects.requireNonNull(stage, "stage")
                        .map(
                                s ->
                                        new DeadLetterWriter(
                                                s,
                                                channel.deadLetterTopic(),
                                                (reason, input) -> {},
                                                Clock.systemUTC()));
        this.deadLetterSerde =
                stage.isPresent()
                        ? channel.deadLetterTopic().valueSerde(channel.serdeConfig())
                        : null;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.pollTimeout = Objects.requireNonNull(pollTimeout, "pollTimeout");
        this.reader = new ModelChannelReader(channel, store, Duration.ofSeconds(30));
        final Map<String, Object> config =
                channel.consumerConfig("rwml-model-follower-" + channel.run());
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        this.consumer = new KafkaConsumer<>(config);
        this.status.set(waitingText());
        this.thread = new Thread(this::loop, "rwml-model-follower-" + channel.run());
        this.thread.setDaemon(true);
    }

    /**
     * Starts following {@code channel}; the listener runs on the follower's thread, one version at
     * a time, and the follower keeps the previous version when it throws.
     *
     * @param stage the stage the follower serves, named on the dead letter of each version it
     *     rejects; empty for a tool that only watches (nothing is dead-lettered)
     */
    public static ModelFollower start(
            final ModelChannel channel,
            final Optional<ArtifactStore> store,
            final Listener listener,
            final Duration pollTimeout,
            final Optional<StageName> stage) {
        final ModelFollower follower =
                new ModelFollower(channel, store, listener, pollTimeout, stage);
        follower.thread.start();
        return follower;
    }

    /** The version last handed to the listener, or -1 before the first. */
    public long currentVersion() {
        return current.get();
    }

    /** Versions rejected so far (bad size or SHA-256, missing chunks, listener failure). */
    public long rejectedCount() {
        return rejected.get();
    }

    /** What the follower is doing, for status lines: waiting, or following at a version. */
    public String status() {
        return status.get();
    }

    /** The error that stopped the follower, if it stopped on one. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    private String waitingText() {
        return "waiting for version 0 of run " + channel.run();
    }

    private void loop() {
        long lastWaitLog = 0;
        try {
            List<TopicPartition> partitions = List.of();
            while (running) {
                if (partitions.isEmpty()) {
                    partitions = assign();
                    if (partitions.isEmpty()) {
                        lastWaitLog = logWaiting(lastWaitLog);
                        Thread.sleep(pollTimeout.toMillis());
                        continue;
                    }
                }
                final List<Published> fresh = new ArrayList<>();
                for (final ConsumerRecord<String, byte[]> r : consumer.poll(pollTimeout)) {
                    if (r.value() == null) {
                        continue;
                    }
                    final ModelVersion m;
                    try {
                        m = channel.deserializeManifest(r.value());
                    } catch (final SerializationException e) {
                        rejected.incrementAndGet();
                        LOG.error(
                                "Model follower: skipping undecodable manifest at {}-{}@{}: {}",
                                r.topic(),
                                r.partition(),
                                r.offset(),
                                e.getMessage());
                        deadLetter(r, e, DeadLetters.reasonOf(e));
                        continue;
                    }
                    if (m.getVersion() > current.get()
                            && !rejectedVersions.contains(m.getVersion())) {
                        fresh.add(new Published(m, r));
                    }
                }
                if (fresh.isEmpty()) {
                    if (current.get() < 0) {
                        lastWaitLog = logWaiting(lastWaitLog);
                    }
                    continue;
                }
                // Catching up from the beginning, only the newest version is worth loading; an
                // older one is tried only when every newer one is rejected.
                fresh.sort(
                        Comparator.comparingLong((Published p) -> p.manifest().getVersion())
                                .reversed());
                for (final Published m : fresh) {
                    if (tryLoad(m)) {
                        break;
                    }
                }
            }
        } catch (final WakeupException | InterruptedException e) {
            if (running) {
                failure.set(e);
            }
        } catch (final RuntimeException e) {
            if (!running) {
                return;
            }
            LOG.error(
                    "Model follower of run {} stopped: {}; restart the stage to follow again",
                    channel.run(),
                    e.toString(),
                    e);
            failure.set(e);
            status.set("stopped: " + e.getMessage());
        }
    }

    private List<TopicPartition> assign() {
        final List<PartitionInfo> infos = consumer.partitionsFor(channel.modelsTopic());
        if (infos == null || infos.isEmpty()) {
            return List.of();
        }
        final List<TopicPartition> tps = new ArrayList<>();
        infos.forEach(p -> tps.add(new TopicPartition(p.topic(), p.partition())));
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        return tps;
    }

    private long logWaiting(final long lastLogNanos) {
        final long now = System.nanoTime();
        if (lastLogNanos == 0 || now - lastLogNanos >= WAIT_LOG_EVERY.toNanos()) {
            LOG.info("Model follower: {}", waitingText());
            return now;
        }
        return lastLogNanos;
    }

    /** A manifest and the record it came in. */
    private record Published(ModelVersion manifest, ConsumerRecord<String, byte[]> record) {}

    private boolean tryLoad(final Published published) {
        final ModelVersion m = published.manifest();
        final VerifiedArtifact artifact;
        try {
            artifact = reader.fetch(m);
        } catch (final ArtifactRejectedException e) {
            reject(published, e.reason(), e, false);
            return false;
        }
        try {
            listener.install(artifact, reader);
        } catch (final RuntimeException e) {
            reject(published, "it could not be loaded: " + e, e, true);
            return false;
        }
        current.set(m.getVersion());
        status.set("following run " + channel.run() + " at version " + m.getVersion());
        LOG.info(
                "Model follower: loaded version {} of run {} ({} bytes)",
                m.getVersion(),
                channel.run(),
                artifact.bytes().length);
        return true;
    }

    private void reject(
            final Published published,
            final String why,
            final Exception cause,
            final boolean logTrace) {
        final ModelVersion m = published.manifest();
        rejectedVersions.add(m.getVersion());
        rejected.incrementAndGet();
        LOG.error(
                "Model follower: rejected version {} of run {}, keeping version {}: {}",
                m.getVersion(),
                channel.run(),
                current.get(),
                why,
                logTrace ? cause : null);
        final String kept =
                current.get() < 0
                        ? " (no version loaded yet)"
                        : " (keeping version " + current.get() + ")";
        deadLetter(
                published.record(),
                new ArtifactRejectedException(channel.run(), m.getVersion(), why + kept),
                DeadLetters.MODEL_REJECTED);
    }

    /**
     * Reports a manifest the follower could not use on the run's dead-letter topic, when it serves
     * a stage. Sent without waiting: an unreachable broker delays the report, never the follower.
     */
    private void deadLetter(
            final ConsumerRecord<String, byte[]> record,
            final Exception error,
            final String reason) {
        if (deadLetters.isEmpty()) {
            return;
        }
        try {
            if (deadLetterProducer == null) {
                deadLetterProducer =
                        new KafkaProducer<>(
                                channel.plainProducerConfig(
                                        "rwml-model-follower-dlq-" + channel.run()));
            }
            deadLetterProducer.send(
                    deadLetters
                            .get()
                            .encoded(
                                    new DeadLetterWriter.Source(
                                            record.topic(),
                                            record.partition(),
                                            record.offset(),
                                            record.key() == null
                                                    ? null
                                                    : ModelChannel.keyBytes(record.key()),
                                            record.value(),
                                            record.headers()),
                                    error,
                                    reason,
                                    deadLetterSerde.serializer()),
                    (metadata, e) -> {
                        if (e != null) {
                            LOG.error(
                                    "Model follower: could not dead-letter {}-{}@{}: {}",
                                    record.topic(),
                                    record.partition(),
                                    record.offset(),
                                    e.toString());
                        }
                    });
        } catch (final RuntimeException e) {
            LOG.error("Model follower: could not dead-letter a rejected version: {}", e.toString());
        }
    }

    /** Stops the thread and closes its consumers. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close();
        reader.close();
        if (deadLetterProducer != null) {
            deadLetterProducer.close(Duration.ofSeconds(5));
        }
        if (deadLetterSerde != null) {
            deadLetterSerde.close();
        }
    }
}
