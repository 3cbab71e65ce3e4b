package dev.rwml.runtime.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.DeadLetter;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.errors.Outage;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.registry.RegistryUnauthorizedException;
import dev.rwml.schemas.registry.RegistryUnreachableException;
import dev.rwml.schemas.registry.UnknownSchemaException;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.serde.EventSerdes;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeadLetterHandlersTest {

    private static final String REGISTRY = "mock://dead-letter-handlers-test";

    /** Dead letters counted by reason, as a stage's metrics count them. */
    private final Map<String, Integer> counted = new ConcurrentHashMap<>();

    private final DeadLetterCounter metrics =
            (reason, input) -> counted.merge(reason, 1, Integer::sum);

    /** An embedding server that cannot be reached, as the scoring module reports it. */
    private static final class Unreachable extends RuntimeException implements Outage {
        Unreachable(final String message) {
            super(message);
        }

        @Override
        public boolean isRetriable() {
            return true;
        }
    }

    @AfterEach
    void dropRegistry() {
        MockSchemaRegistry.dropScope("dead-letter-handlers-test");
    }

    private Map<String, Object> configs() {
        return Map.of(
                RegistryConfig.URL,
                REGISTRY,
                DeadLetterHandlers.RUN_CONFIG,
                "r1",
                DeadLetterHandlers.PREDICTIONS_TOPIC_CONFIG,
                "rwml.r0.predictions",
                DeadLetterHandlers.METRICS_CONFIG,
                metrics);
    }

    private static ErrorHandlerContext context() {
        return new ErrorHandlerContext() {
            @Override
            public String topic() {
                return "rwml.r0.predictions";
            }

            @Override
            public int partition() {
                return 2;
            }

            @Override
            public long offset() {
                return 17;
            }

            @Override
            public Headers headers() {
                return new RecordHeaders();
            }

            @Override
            public String processorNodeId() {
                return "score-groups";
            }

            @Override
            public TaskId taskId() {
                return new TaskId(0, 2);
            }

            @Override
            public long timestamp() {
                return 0;
            }

            @Override
            public byte[] sourceRawKey() {
                return "k".getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public byte[] sourceRawValue() {
                return new byte[] {1, 2, 3};
            }
        };
    }

    private DeadLetter decode(final ProducerRecord<byte[], byte[]> record) {
        return EventSerdes.forValue(DeadLetter.class, Map.of(RegistryConfig.URL, REGISTRY))
                .deserializer()
                .deserialize(record.topic(), record.value());
    }

    private DeserializationExceptionHandler.Response deserializationFailure(
            final ConsumerRecord<byte[], byte[]> record, final Exception failure) {
        final DeadLetterHandlers.Deserialization handler = new DeadLetterHandlers.Deserialization();
        handler.configure(configs());
        return handler.handleError(context(), record, failure);
    }

    private ProcessingExceptionHandler.Response processingFailure(final Exception failure) {
        final DeadLetterHandlers.Processing handler = new DeadLetterHandlers.Processing();
        handler.configure(configs());
        return handler.handleError(context(), new Record<>("k", "v", 0L), failure);
    }

    private static ConsumerRecord<byte[], byte[]> prediction(final byte[] value) {
        return new ConsumerRecord<>(
                "rwml.r0.predictions", 2, 17, "k".getBytes(StandardCharsets.UTF_8), value);
    }

    private static ConsumerRecord<byte[], byte[]> framedPrediction() {
        return prediction(new byte[] {0, 0, 0, 0, 7, 2, 4});
    }

    private static RegistryUnreachableException registryUnreachable() {
        return new RegistryUnreachableException(
                "http://registry:8081", 5, new ConnectException("Connection refused"));
    }

    @Test
    void shouldSendUndecodableBytesToTheRunsDeadLetterTopicWithTheirReason() {
        final DeserializationExceptionHandler.Response response =
                deserializationFailure(
                        prediction(new byte[] {42, 0, 0, 0, 1, 9}),
                        new EventDecodingException(
                                EventDecodingException.Reason.WRONG_MAGIC_BYTE,
                                "rwml.r0.predictions",
                                "first byte 42"));

        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        final ProducerRecord<byte[], byte[]> record = response.deadLetterQueueRecords().get(0);
        assertThat(record.topic()).isEqualTo("rwml.r1.dead-letters");
        assertThat(
                        new String(
                                record.headers().lastHeader(DeadLetters.REASON_HEADER).value(),
                                StandardCharsets.UTF_8))
                .isEqualTo("WRONG_MAGIC_BYTE");
        final DeadLetter letter = decode(record);
        assertThat(letter.getSourceOffset()).isEqualTo(17);
        assertThat(letter.getOriginalValue().remaining()).isEqualTo(6);
        assertThat(counted.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterAProcessingFailureAndResume() {
        final ProcessingExceptionHandler.Response response =
                processingFailure(new IllegalStateException("boom"));

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        final DeadLetter letter = decode(response.deadLetterQueueRecords().get(0));
        assertThat(letter.getErrorMessage()).isEqualTo("boom");
        assertThat(letter.getStage()).isEqualTo(StageName.REWARD.id());
    }

    @Test
    void shouldFailTheThreadWhenTheEmbeddingModelIsUnreachableSoRecordsAreRetried() {
        final ProcessingExceptionHandler.Response response =
                processingFailure(new Unreachable("cannot reach embedding server"));

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
    }

    @Test
    void shouldFailTheThreadRatherThanDeadLetterWhenTheRegistryIsUnreachable() {
        final DeserializationExceptionHandler.Response response =
                deserializationFailure(framedPrediction(), registryUnreachable());

        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
        assertThat(counted.values().stream().mapToInt(Integer::intValue).sum()).isZero();
    }

    @Test
    void shouldFailTheThreadRatherThanDeadLetterWhenTheRegistryRefusesTheCredentials() {
        final DeserializationExceptionHandler.Response response =
                deserializationFailure(
                        framedPrediction(),
                        new RegistryUnauthorizedException(
                                "http://registry:8081",
                                "read schema id 7",
                                "Unauthorized",
                                401,
                                40101));

        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
    }

    @Test
    void shouldStillDeadLetterASchemaIdTheRegistrySaysItDoesNotKnow() {
        final DeserializationExceptionHandler.Response response =
                deserializationFailure(
                        framedPrediction(),
                        new EventDecodingException(
                                EventDecodingException.Reason.UNKNOWN_SCHEMA_ID,
                                "rwml.r0.predictions",
                                "schema id 7 is not registered",
                                UnknownSchemaException.forId(
                                        7, "http://registry:8081", 404, 40403)));

        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        final ProducerRecord<byte[], byte[]> record = response.deadLetterQueueRecords().get(0);
        assertThat(record.headers().lastHeader(DeadLetters.REASON_HEADER).value())
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("UNKNOWN_SCHEMA_ID");
        assertThat(decode(record).getStage()).isEqualTo(StageName.REWARD.id());
    }

    @Test
    void shouldFailTheThreadRatherThanDeadLetterWhenTheRegistryIsUnreachableInAProcessor() {
        final ProcessingExceptionHandler.Response response =
                processingFailure(registryUnreachable());

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
    }
}
