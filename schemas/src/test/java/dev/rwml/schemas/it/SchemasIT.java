package dev.rwml.schemas.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.schemas.SampleEvents;
import dev.rwml.schemas.registry.CompatibilityLevel;
import dev.rwml.schemas.registry.IncompatibleSchemaException;
import dev.rwml.schemas.registry.RegistryConfig;
import dev.rwml.schemas.registry.RestSchemaRegistryClient;
import dev.rwml.schemas.registry.SchemaRegistryClient;
import dev.rwml.schemas.registry.UnknownSchemaException;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.serde.WireFormat;
import dev.rwml.schemas.topics.EnsureResult;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.schemas.topics.TopicMismatchException;
import dev.rwml.schemas.topics.TopicSpec;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The catalog, registry client and serdes against a real broker and a real Apicurio registry. */
class SchemasIT {
    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final String PREFIX = "it-" + UUID.randomUUID().toString().substring(0, 8);

    private static Admin admin;

    @BeforeAll
    static void connect() {
        admin = KAFKA.admin();
    }

    @AfterAll
    static void disconnect() {
        admin.close();
    }

    private static Map<String, String> registryConfig() {
        return EventSerdes.registryConfig(KAFKA.schemaRegistryUrl());
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void shouldRoundTripEveryEventTypeThroughATopicInConfluentFraming() throws Exception {
        final SchemaRegistryClient registry =
                new RestSchemaRegistryClient(RegistryConfig.of(KAFKA.schemaRegistryUrl()));
        for (final SpecificRecord event : SampleEvents.everyEventType()) {
            final String topic = PREFIX + "." + event.getClass().getSimpleName();
            final EventSerde serde = EventSerdes.forValue(event.getClass(), registryConfig());
            try (KafkaProducer<String, SpecificRecord> producer =
                    TestClients.producer(
                            KAFKA.bootstrapServers(), new StringSerializer(), serde.serializer())) {
                producer.send(new ProducerRecord<>(topic, "key-1", event)).get();
            }

            final byte[] bytes = consumeOne(topic);
            assertThat(bytes[0]).isEqualTo(WireFormat.MAGIC_BYTE);
            final int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            assertThat(registry.schemaById(id)).isEqualTo(event.getSchema());
            assertThat(registry.lookupId(topic + "-value", event.getSchema())).isEqualTo(id);
            assertThat(serde.deserializer().deserialize(topic, bytes))
                    .as(event.getClass().getSimpleName())
                    .isEqualTo(event);
        }
    }

    @Test
    void shouldRejectUnknownSchemaIdFromTheRealRegistry() {
        final byte[] bytes = WireFormat.frame(999_999, new byte[] {0});
        assertThatThrownBy(
                        () ->
                                EventSerdes.forValue(
                                                dev.rwml.events.Transition.class, registryConfig())
                                        .deserializer()
                                        .deserialize("t", bytes))
                .isInstanceOfSatisfying(
                        EventDecodingException.class,
                        e ->
                                assertThat(e.reason())
                                        .isEqualTo(
                                                EventDecodingException.Reason.UNKNOWN_SCHEMA_ID));
        assertThatThrownBy(
                        () ->
                                new RestSchemaRegistryClient(
                                                RegistryConfig.of(KAFKA.schemaRegistryUrl()))
                                        .schemaById(999_999))
                .isInstanceOf(UnknownSchemaException.class);
    }

    @Test
    void shouldRegisterBackwardCompatibleChangeAndRefuseIncompatibleOne() {
        final SchemaRegistryClient registry =
                new RestSchemaRegistryClient(RegistryConfig.of(KAFKA.schemaRegistryUrl()));
        final String subject = PREFIX + ".evolving-value";
        final int v1 = registry.register(subject, thing(false, false));
        registry.setCompatibility(subject, CompatibilityLevel.BACKWARD);
        assertThat(registry.compatibility(subject)).isEqualTo(CompatibilityLevel.BACKWARD);

        final int v2 = registry.register(subject, thing(true, false));
        assertThat(v2).isNotEqualTo(v1);
        assertThat(registry.register(subject, thing(true, false))).isEqualTo(v2);

        assertThatThrownBy(() -> registry.register(subject, thing(true, true)))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo(subject);
                            assertThat(e.reason()).isNotBlank();
                            assertThat(e.httpStatus()).isEqualTo(409);
                        })
                .hasMessageContaining(subject);
    }

    @Test
    void shouldRefuseAnIncompatibleChangeOnASubjectWithNoRuleOfItsOwn() {
        final SchemaRegistryClient registry =
                new RestSchemaRegistryClient(RegistryConfig.of(KAFKA.schemaRegistryUrl()));
        final String subject = PREFIX + ".untouched-value";
        registry.register(subject, thing(false, false));
        registry.register(subject, thing(true, false));
        assertThatThrownBy(() -> registry.register(subject, thing(true, true)))
                .isInstanceOf(IncompatibleSchemaException.class)
                .hasMessageContaining(subject);
    }

    @Test
    void shouldCreateTopicsIdempotentlyAndConcurrently() throws Exception {
        final TopicCatalog catalog = TopicCatalog.defaults();
        final String run = PREFIX.replace("-", "_") + "_idem";
        final List<TopicSpec<?, ?>> topics = catalog.forRun(run);

        final List<CompletableFuture<EnsureResult>> racers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            racers.add(
                    CompletableFuture.supplyAsync(
                            () -> new TopicAdmin(admin, catalog).ensure(topics)));
        }
        for (final CompletableFuture<EnsureResult> racer : racers) {
            racer.get();
        }
        final EnsureResult again = new TopicAdmin(admin, catalog).ensure(topics);

        assertThat(again.created()).isEmpty();
        assertThat(again.existing()).hasSize(topics.size());
        final int transitions = partitions(TopicCatalog.TRANSITIONS);
        final RunTopics runTopics = catalog.run(run);
        assertThat(partitions(runTopics.predictions().name())).isEqualTo(transitions);
        assertThat(partitions(runTopics.rewards().name())).isEqualTo(transitions);
        assertThat(partitions(runTopics.models().name())).isEqualTo(1);
    }

    @Test
    void shouldReportPartitionMismatchWithTransitions() throws Exception {
        final TopicCatalog catalog = TopicCatalog.defaults();
        new TopicAdmin(admin, catalog).ensure(catalog.shared());
        final int transitions = partitions(TopicCatalog.TRANSITIONS);
        final String run = PREFIX.replace("-", "_") + "_mismatch";
        final String predictions = catalog.run(run).predictions().name();
        admin.createTopics(
                        List.of(
                                new NewTopic(
                                        predictions,
                                        Optional.of(transitions + 1),
                                        Optional.empty())))
                .all()
                .get();
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> partitions(predictions) == transitions + 1);

        assertThatThrownBy(() -> new TopicAdmin(admin, catalog).ensure(catalog.forRun(run)))
                .isInstanceOf(TopicMismatchException.class)
                .hasMessageContaining(
                        "topic "
                                + predictions
                                + " has "
                                + (transitions + 1)
                                + " partitions but rwml.transitions has "
                                + transitions)
                .hasMessageContaining("co-partitioned");
    }

    private static int partitions(final String topic) throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get()
                .get(topic)
                .partitions()
                .size();
    }

    private static byte[] consumeOne(final String topic) {
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                KAFKA.bootstrapServers(),
                                ConsumerConfig.GROUP_ID_CONFIG,
                                topic + "-reader",
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest"),
                        new StringDeserializer(),
                        new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            final List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> {
                                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                                return !seen.isEmpty();
                            });
            assertThat(seen.get(0).key()).isEqualTo("key-1");
            return seen.get(0).value();
        }
    }

    /**
     * A record schema: v1 has id; with score adds an optional field; required adds a required one.
     */
    private static Schema thing(final boolean withScore, final boolean withRequired) {
        SchemaBuilder.FieldAssembler<Schema> fields =
                SchemaBuilder.record("Thing")
                        .namespace("it." + PREFIX.replace("-", "_"))
                        .fields()
                        .requiredString("id");
        if (withScore) {
            fields = fields.name("score").type().doubleType().doubleDefault(0.0);
        }
        if (withRequired) {
            fields = fields.requiredString("owner");
        }
        return fields.endRecord();
    }
}
