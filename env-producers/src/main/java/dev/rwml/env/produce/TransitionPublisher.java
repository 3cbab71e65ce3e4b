package dev.rwml.env.produce;

import dev.rwml.events.Transition;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicSpec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Micrometer counters, tagged with {@code env} and {@code source} ({@code run} or {@code
 * import}): {@code rwml.env.episodes}, {@code rwml.env.transitions} (acknowledged) and {@code
 * rwml.env.send.errors}. Thread-safe: the agents of a run share one publisher.
 */
public final class TransitionPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransitionPublisher.class);

    private final Producer<String, Transition> producer;
    private final String topic;
    private final MeterRegistry meters;
    private final String source;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<Exception> firstError = new AtomicReference<>();
    private final Map<String, Counter[]> counters = new ConcurrentHashMap<>();

    private TransitionPublisher(
            final Producer<String, Transition> producer,
            final String topic,
            final MeterRegistry meters,
            final String source) {
        this.producer = producer;
        this.topic = topic;
        this.meters = meters;
        this.source = source;
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
                        counters(env)[1].increment();
                    } else {
                        errors.incrementAndGet();
                        counters(env)[2].increment();
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
        counters(env)[0].increment();
    }

    /** Blocks until every transition sent so far is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    /** Transitions the broker acknowledged so far. */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** Transitions that failed after the client's retries. */
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

    private Counter[] counters(final String env) {
        return counters.computeIfAbsent(
                env,
                e ->
                        new Counter[] {
                            meters.counter("rwml.env.episodes", "env", e, "source", source),
                            meters.counter("rwml.env.transitions", "env", e, "source", source),
                            meters.counter("rwml.env.send.errors", "env", e, "source", source)
                        });
    }

    /** Flushes, then closes the producer (and with it the registry client). */
    @Override
    public void close() {
        producer.close();
    }
}
