package dev.rwml.runtime.streams;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.runtime.errors.ServiceException;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka Streams error handlers of the reward and filter stages: undecodable input and records
 * that fail in a processor go to the run's dead-letter topic (inside the same transaction) and the
 * stage keeps running; {@link ErrorPolicy#classify} decides. An outage (registry or embedding
 * server unreachable, 5xx, 429) instead stops the thread so that the records are retried, and so
 * does a refusal every record would meet alike (credentials, unfit settings).
 */
public final class DeadLetterHandlers {

    /** Streams setting: the run whose dead-letter topic receives the letters. */
    public static final String RUN_CONFIG = "rwml.dead-letters.run";

    /** Streams setting: the topic prediction groups are read from. */
    public static final String PREDICTIONS_TOPIC_CONFIG = "rwml.dead-letters.predictions.topic";

    /** Streams setting: the {@link DeadLetterCounter} that counts dead letters (optional). */
    public static final String METRICS_CONFIG = "rwml.dead-letters.metrics";

    /**
     * Streams setting: the {@link StageName} whose letters these are; the reward stage if unset.
     */
    public static final String STAGE_CONFIG = "rwml.dead-letters.stage";

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterHandlers.class);

    private DeadLetterHandlers() {}

    /** State both handlers share, built from the Streams configuration. */
    private static final class Target {
        final DeadLetterWriter writer;
        final EventSerde<DeadLetter> letters;
        final EventSerde<PredictionGroup> predictions;
        final String predictionsTopic;

        Target(final Map<String, ?> configs) {
            final Object run = configs.get(RUN_CONFIG);
            if (run == null) {
                throw new IllegalArgumentException(
                        RUN_CONFIG + " must name the run whose dead-letter topic to use");
            }
            this.letters = EventSerdes.forValue(DeadLetter.class, configs);
            this.predictions = EventSerdes.forValue(PredictionGroup.class, configs);
            final Object source = configs.get(PREDICTIONS_TOPIC_CONFIG);
            this.predictionsTopic = source == null ? "" : source.toString();
            final Object stageName = configs.get(STAGE_CONFIG);
            this.writer =
                    new DeadLetterWriter(
                            stageName == null
                                    ? StageName.REWARD
                                    : StageName.parse(stageName.toString()),
                            TopicCatalog.defaults().run(run.toString()).deadLetters(),
                            configs.get(METRICS_CONFIG) instanceof DeadLetterCounter counter
                                    ? counter
                                    : (reason, input) -> {},
                            Clock.systemUTC());
        }

        List<ProducerRecord<byte[], byte[]>> records(
                final DeadLetterWriter.Source source, final Throwable error, final String reason) {
            return List.of(writer.encoded(source, error, reason, letters.serializer()));
        }
    }

    /** A handler's dead-letter target, read from the Streams configs it is configured with. */
    abstract static class Configured {
        Target target;

        public void configure(final Map<String, ?> configs) {
            target = new Target(configs);
        }
    }

    /** Sends undecodable records to the dead-letter topic and continues. */
    public static final class Deserialization extends Configured
            implements DeserializationExceptionHandler {

        @Override
        public Response handleError(
                final ErrorHandlerContext context,
                final ConsumerRecord<byte[], byte[]> record,
                final Exception exception) {
            final ErrorPolicy.Action action = ErrorPolicy.classify(exception);
            if (action != ErrorPolicy.Action.DEAD_LETTER) {
                LOG.error(
                        "cannot decode {}-{}@{} for a reason that is not the record's ({}); stopping"
                                + " the thread so that it is {} rather than dead-lettered: {}",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        action,
                        action == ErrorPolicy.Action.RETRY
                                ? "retried"
                                : "kept until the stage is fixed and restarted",
                        exception.getMessage());
                return Response.fail();
            }
            LOG.warn(
                    "dead-lettering undecodable record {}-{}@{}: {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    exception.getMessage());
            return Response.resume(
                    target.records(
                            DeadLetterWriter.Source.of(record),
                            exception,
                            DeadLetters.reasonOf(exception)));
        }
    }

    /** Sends records that fail in a processor to the dead-letter topic and continues. */
    public static final class Processing extends Configured implements ProcessingExceptionHandler {

        @Override
        public Response handleError(
                final ErrorHandlerContext context,
                final Record<?, ?> record,
                final Exception exception) {
            switch (ErrorPolicy.classify(exception)) {
                case RETRY -> {
                    LOG.error(
                            "outage at {}-{}@{}; stopping the thread so the records are retried"
                                    + " from the last commit: {}",
                            context.topic(),
                            context.partition(),
                            context.offset(),
                            exception.getMessage());
                    return Response.fail();
                }
                case FAIL -> {
                    LOG.error(
                            "access refused or settings unfit at {}-{}@{}; stopping the thread,"
                                    + " and the stage once its restarts are spent: fix what the"
                                    + " error names and start it again (it resumes from its"
                                    + " committed offsets): {}",
                            context.topic(),
                            context.partition(),
                            context.offset(),
                            exception.getMessage());
                    return Response.fail();
                }
                case DEAD_LETTER -> {}
            }
            LOG.warn(
                    "dead-lettering record {} at {}-{}@{} that failed in {}: {}",
                    record.key(),
                    context.topic(),
                    context.partition(),
                    context.offset(),
                    context.processorNodeId(),
                    exception.getMessage());
            return Response.resume(
                    target.records(sourceOf(context, record), exception, reasonOf(exception)));
        }

        /** The reason header: the answer of the service that refused the record, if one did. */
        private static String reasonOf(final Throwable exception) {
            final ServiceException answer = causeOf(exception, ServiceException.class);
            return answer == null
                    ? DeadLetters.PROCESSING
                    : answer.deadLetterReason().orElse(DeadLetters.PROCESSING);
        }

        private DeadLetterWriter.Source sourceOf(
                final ErrorHandlerContext context, final Record<?, ?> record) {
            if (record.value() instanceof JoinedPrediction joined
                    && !target.predictionsTopic.isEmpty()) {
                // The join may have been triggered by the transition: keep the group, which is
                // what this stage failed to reward.
                return new DeadLetterWriter.Source(
                        target.predictionsTopic,
                        context.partition(),
                        -1,
                        context.sourceRawKey(),
                        target.predictions
                                .serializer()
                                .serialize(target.predictionsTopic, joined.prediction()),
                        context.headers());
            }
            return new DeadLetterWriter.Source(
                    context.topic(),
                    context.partition(),
                    context.offset(),
                    context.sourceRawKey(),
                    context.sourceRawValue(),
                    context.headers());
        }
    }

    private static <T> T causeOf(final Throwable error, final Class<T> type) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        return null;
    }
}
