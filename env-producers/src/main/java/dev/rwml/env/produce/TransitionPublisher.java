package dev.rwml.env.produce;

import dev.rwml.events.Transition;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes transitions to {@code rwml.transitions} (key: transitionId, value: the Avro {@link
 * Transition} in the Confluent wire format) with an idempotent producer and {@code acks=all}, and
 * counts what the broker acknowledged and refused.
 *
 * <p>Counts what it publishes in {@link PublishCounters}. Thread-safe: the agents of a run share
 * one publisher.
 */
public final class TransitionPublisher implements EpisodeSink {

    private static final Logger LOG = LoggerFactory.getLogger(TransitionPublisher.class);

    private final Producer<String, Transition> producer;
    private final String topic;
    private final PublishCounters counters;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<Exception> firstError = new AtomicReference<>();

    private TransitionPublisher(
            final Producer<String, Transition> producer,
            final String topic,
            final MeterRegistry meters,
            final String source) {
        this.producer = producer;
        this.topic = topic;
        this.counters = new PublishCounters(meters, source);
    }

    /**
     * Creates {@code rwml.transitions} if it is missing (or validates it), then opens the producer.
     *
     * @param source the {@code source} tag of the metrics: {@code run} or {@code import}
     */
    public static TransitionPublisher open(
            final KafkaSettings settings, final MeterRegistry meters, final String source) {
        final TopicCatalog catalog = new TopicCatalog(settings.catalog());
        final TopicSpec<String, Transition> spec = catalog.transitions();
        try (Admin admin = settings.connection().admin()) {
            new TopicAdmin(admin, catalog).ensure(List.of(spec));
        }
        final KafkaProducer<String, Transition> producer =
                new KafkaProducer<>(
                        producerConfig(settings, source),
                        spec.keySerde().serializer(),
                        spec.valueSerde(settings.registryConfig()).serializer());
        return new TransitionPublisher(producer, spec.name(), meters, source);
    }

    /**
     * The settings of the producer {@link #open} creates: the connection's (with its security
     * settings), the overrides, then idempotence and {@code acks=all}, which cannot be overridden.
     */
    public static Map<String, Object> producerConfig(
            final KafkaSettings settings, final String source) {
        final Map<String, Object> extra = new HashMap<>();
        extra.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        extra.putAll(settings.producerOverrides());
        // Retries must never duplicate or reorder a transition: the connection adds idempotence and
        // acks=all, which the overrides cannot change.
        return settings.connection().idempotentProducerConfig("rwml-env-" + source, extra);
    }

    /**
     * Hands a transition to the producer; the broker's answer arrives later and is counted.
     *
     * @throws org.apache.kafka.common.KafkaException when the record cannot even be queued (e.g.
     *     the schema registry is unreachable): stop publishing, the cause says what to fix
     */
    public void send(final Transition transition) {
        final String env = transition.getEnv().getName();
        producer.send(
                new ProducerRecord<>(topic, transition.getTransitionId(), transition),
                (metadata, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                        counters.acknowledged(env, 1);
                    } else {
                        errors.incrementAndGet();
                        counters.error(env);
                        if (firstError.compareAndSet(null, error)) {
                            LOG.error(
                                    "the broker did not take transition {} (further errors are"
                                            + " only counted)",
                                    transition.getTransitionId(),
                                    error);
                        }
                    }
                });
    }

    /** Counts an episode whose transitions were all handed to {@link #send}. */
    public void episodeSent(final String env) {
        counters.episode(env);
    }

    /** Always false: a scripted run publishes every episode again, the stages keep the first. */
    @Override
    public boolean published(final int game) {
        return false;
    }

    /** Sends the episodes' transitions one by one, each after a permit of {@code throttle}. */
    @Override
    public void publish(final List<Played> game, final Throttle throttle)
            throws InterruptedException {
        for (final Played played : game) {
            final List<Transition> transitions = played.episode().transitions();
            for (final Transition transition : transitions) {
                throttle.acquire();
                send(transition);
            }
            if (!transitions.isEmpty()) {
                episodeSent(transitions.get(0).getEnv().getName());
            }
        }
    }

    @Override
    public void flush() {
        producer.flush();
    }

    @Override
    public long acknowledged() {
        return acknowledged.get();
    }

    @Override
    public long errors() {
        return errors.get();
    }

    /** The first send error, if any. */
    public Optional<Exception> firstError() {
        return Optional.ofNullable(firstError.get());
    }

    /** The topic this publisher writes to. */
    public String topic() {
        return topic;
    }

    /** Flushes, then closes the producer (and with it the registry client). */
    @Override
    public void close() {
        producer.close();
    }
}
