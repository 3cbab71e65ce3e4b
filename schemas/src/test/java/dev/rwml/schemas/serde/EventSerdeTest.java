package dev.rwml.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.ModelChunk;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import dev.rwml.schemas.SampleEvents;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.registry.UnknownSchemaException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EventSerdeTest {
    private static final String TOPIC = "rwml.transitions";

    private final String scope = "serde-" + UUID.randomUUID();
    private final Map<String, String> config = EventSerdes.registryConfig("mock://" + scope);

    @AfterEach
    void dropRegistry() {
        MockSchemaRegistry.dropScope(scope);
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void shouldRoundTripEveryEventType() {
        for (final SpecificRecord event : SampleEvents.everyEventType()) {
            final EventSerde serde = EventSerdes.forValue(event.getClass(), config);
            final byte[] bytes = serde.serializer().serialize("topic-" + event.getClass(), event);
            final Object back =
                    serde.deserializer().deserialize("topic-" + event.getClass(), bytes);
            assertThat(back).as(event.getClass().getSimpleName()).isEqualTo(event);
        }
    }

    @Test
    void shouldFrameWithMagicByteAndRegisteredSchemaIdUnderTopicValueSubject() {
        final EventSerde<Transition> serde = EventSerdes.forValue(Transition.class, config);
        final byte[] bytes = serde.serializer().serialize(TOPIC, SampleEvents.transition(1, 10));

        assertThat(bytes[0]).isEqualTo(WireFormat.MAGIC_BYTE);
        final int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        final MockSchemaRegistry registry = MockSchemaRegistry.forScope(scope);
        assertThat(registry.schemaById(id)).isEqualTo(Transition.getClassSchema());
        assertThat(registry.lookupId(TOPIC + "-value", Transition.getClassSchema())).isEqualTo(id);
        assertThat(registry.subjects()).containsExactly(TOPIC + "-value");
    }

    @Test
    void shouldUseKeySubjectForKeySerde() {
        final EventSerde<ModelChunk> serde = EventSerdes.forKey(ModelChunk.class, config);
        serde.serializer().serialize("chunks", SampleEvents.modelChunk());
        assertThat(MockSchemaRegistry.forScope(scope).subjects()).containsExactly("chunks-key");
    }

    @Test
    void shouldPassNullThroughAsTombstone() {
        final EventSerde<Transition> serde = EventSerdes.forValue(Transition.class, config);
        assertThat(serde.serializer().serialize(TOPIC, null)).isNull();
        assertThat(serde.deserializer().deserialize(TOPIC, null)).isNull();
    }

    @Test
    void shouldRefuseUnregisteredSchemaWhenAutoRegisterIsOff() {
        final Map<String, String> noAuto = new HashMap<>(config);
        noAuto.put(EventSerdes.AUTO_REGISTER_SCHEMAS, "false");
        final EventSerde<Transition> serde = EventSerdes.forValue(Transition.class, noAuto);

        assertThatThrownBy(() -> serde.serializer().serialize(TOPIC, SampleEvents.transition(1, 1)))
                .isInstanceOf(UnknownSchemaException.class)
                .hasMessageContaining(TOPIC + "-value")
                .hasMessageContaining("auto.register.schemas=true");

        MockSchemaRegistry.forScope(scope).register(TOPIC + "-value", Transition.getClassSchema());
        assertThat(serde.serializer().serialize(TOPIC, SampleEvents.transition(1, 1))).isNotNull();
    }

    @Test
    void shouldReadDataWrittenWithAnOlderSchemaUsingReaderDefaults() throws Exception {
        final Schema old = olderTransitionSchema();
        final int id = MockSchemaRegistry.forScope(scope).register(TOPIC + "-value", old);
        final GenericRecord env = new GenericData.Record(old.getField("env").schema());
        env.put("name", "alfworld");
        env.put("version", "1");
        env.put("split", "train");
        final GenericRecord policy = new GenericData.Record(old.getField("policy").schema());
        policy.put("name", "expert");
        final GenericRecord record = new GenericData.Record(old);
        record.put("transitionId", "alfworld/e/0");
        record.put("env", env);
        record.put("episodeId", "e");
        record.put("step", 0);
        record.put("agentId", "a");
        record.put("policy", policy);
        record.put("task", "t");
        record.put("observation", "o");
        record.put("action", "a");
        record.put("nextObservation", "n");
        record.put(
                "nextKind",
                new GenericData.EnumSymbol(old.getField("nextKind").schema(), "TOOL_RESULT"));
        record.put("eventTime", 1_000L);

        final Transition read =
                EventSerdes.forValue(Transition.class, config)
                        .deserializer()
                        .deserialize(TOPIC, frame(id, old, record));

        assertThat(read.getNextKind()).isEqualTo(NextStateKind.TOOL_RESULT);
        assertThat(read.getHistory()).isEmpty();
        assertThat(read.getActionValid()).isTrue();
        assertThat(read.getMetadata()).isEmpty();
        assertThat(read.getEventTime().toEpochMilli()).isEqualTo(1_000L);
    }

    @Test
    void shouldRejectTooFewBytesAsTruncated() {
        assertDecodingFails(new byte[] {0, 0, 1}, EventDecodingException.Reason.TRUNCATED);
        assertDecodingFails(new byte[0], EventDecodingException.Reason.TRUNCATED);
    }

    @Test
    void shouldRejectWrongMagicByte() {
        final byte[] bytes = validBytes();
        bytes[0] = 1;
        assertDecodingFails(bytes, EventDecodingException.Reason.WRONG_MAGIC_BYTE);
        assertDecodingFails(
                "{\"json\": true}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                EventDecodingException.Reason.WRONG_MAGIC_BYTE);
    }

    @Test
    void shouldRejectUnknownSchemaId() {
        final byte[] bytes = validBytes();
        ByteBuffer.wrap(bytes, 1, 4).putInt(987_654);
        assertDecodingFails(bytes, EventDecodingException.Reason.UNKNOWN_SCHEMA_ID);
    }

    @Test
    void shouldRejectDataCutShortAsTruncated() {
        final byte[] bytes = validBytes();
        assertDecodingFails(
                Arrays.copyOf(bytes, bytes.length - 20), EventDecodingException.Reason.TRUNCATED);
    }

    @Test
    void shouldRejectTrailingBytesAsUndecodable() {
        final byte[] bytes = validBytes();
        assertDecodingFails(
                Arrays.copyOf(bytes, bytes.length + 3),
                EventDecodingException.Reason.UNDECODABLE_PAYLOAD);
    }

    /** Avro alone would decode the bytes with U+FFFD in place of the broken sequence. */
    @Test
    void shouldRejectAStringThatIsNotUtf8() {
        final Transition t = SampleEvents.transition(2, 50);
        t.setObservation("MARK-abc");
        final byte[] bytes =
                EventSerdes.forValue(Transition.class, config).serializer().serialize(TOPIC, t);
        final byte[] marker = "MARK-abc".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int at = -1;
        for (int i = 0; i + marker.length <= bytes.length && at < 0; i++) {
            if (Arrays.equals(Arrays.copyOfRange(bytes, i, i + marker.length), marker)) {
                at = i;
            }
        }
        assertThat(at).isNotNegative();
        bytes[at + 5] = (byte) 0xC3; // a lead byte followed by an ASCII byte: not UTF-8
        assertDecodingFails(bytes, EventDecodingException.Reason.INVALID_UTF8);
        assertThatThrownBy(
                        () ->
                                EventSerdes.forValue(Transition.class, config)
                                        .deserializer()
                                        .deserialize(TOPIC, bytes))
                .hasMessageContaining("a string of 8 bytes that is not valid UTF-8");
        // a valid multi-byte text still reads back as it was written
        t.setObservation("Vous êtes dans une pièce — 部屋");
        assertThat(
                        EventSerdes.forValue(Transition.class, config)
                                .deserializer()
                                .deserialize(
                                        TOPIC,
                                        EventSerdes.forValue(Transition.class, config)
                                                .serializer()
                                                .serialize(TOPIC, t))
                                .getObservation())
                .isEqualTo("Vous êtes dans une pièce — 部屋");
    }

    @Test
    void shouldRejectSchemaOfAnotherRecordTypeAsIncompatible() {
        final int id =
                MockSchemaRegistry.forScope(scope)
                        .register("other-value", ModelChunk.getClassSchema());
        final byte[] bytes = WireFormat.frame(id, new byte[] {2, 'r', 2, 2, 2, 0});
        assertDecodingFails(bytes, EventDecodingException.Reason.INCOMPATIBLE_SCHEMA);
    }

    @Test
    void shouldTurnEveryGarbagePayloadIntoTheOneDecodingException() {
        final byte[] valid = validBytes();
        final Random random = new Random(42);
        final EventSerde<Transition> serde = EventSerdes.forValue(Transition.class, config);
        int failures = 0;
        for (int i = 0; i < 2_000; i++) {
            final byte[] garbage = new byte[5 + random.nextInt(300)];
            random.nextBytes(garbage);
            System.arraycopy(valid, 0, garbage, 0, 5);
            try {
                serde.deserializer().deserialize(TOPIC, garbage);
            } catch (EventDecodingException e) {
                failures++;
                assertThat(e.topic()).isEqualTo(TOPIC);
            }
        }
        assertThat(failures).isGreaterThan(1_900);
    }

    private void assertDecodingFails(
            final byte[] bytes, final EventDecodingException.Reason reason) {
        final EventSerde<Transition> serde = EventSerdes.forValue(Transition.class, config);
        assertThatThrownBy(() -> serde.deserializer().deserialize(TOPIC, bytes))
                .isInstanceOfSatisfying(
                        EventDecodingException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(reason);
                            assertThat(e.topic()).isEqualTo(TOPIC);
                            assertThat(e.getMessage()).contains(TOPIC).contains(reason.name());
                        })
                .isInstanceOf(org.apache.kafka.common.errors.SerializationException.class);
    }

    private byte[] validBytes() {
        return EventSerdes.forValue(Transition.class, config)
                .serializer()
                .serialize(TOPIC, SampleEvents.transition(2, 50));
    }

    private static byte[] frame(final int id, final Schema schema, final GenericRecord record)
            throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return WireFormat.frame(id, out.toByteArray());
    }

    /**
     * Transition as a first release might have had it: no history, flags, admissible or metadata.
     */
    private static Schema olderTransitionSchema() {
        return SchemaBuilder.record("Transition")
                .namespace("dev.rwml.events")
                .fields()
                .requiredString("transitionId")
                .name("env")
                .type(
                        SchemaBuilder.record("EnvRef")
                                .namespace("dev.rwml.events")
                                .fields()
                                .requiredString("name")
                                .requiredString("version")
                                .requiredString("split")
                                .endRecord())
                .noDefault()
                .requiredString("episodeId")
                .requiredInt("step")
                .requiredString("agentId")
                .name("policy")
                .type(
                        SchemaBuilder.record("PolicyRef")
                                .namespace("dev.rwml.events")
                                .fields()
                                .requiredString("name")
                                .name("modelVersion")
                                .type()
                                .optional()
                                .longType()
                                .endRecord())
                .noDefault()
                .requiredString("task")
                .requiredString("observation")
                .requiredString("action")
                .requiredString("nextObservation")
                .name("nextKind")
                .type(
                        SchemaBuilder.enumeration("NextStateKind")
                                .namespace("dev.rwml.events")
                                .symbols("TEXT", "TOOL_RESULT", "USER_MESSAGE"))
                .noDefault()
                .name("eventTime")
                .type(
                        org.apache.avro.LogicalTypes.timestampMillis()
                                .addToSchema(Schema.create(Schema.Type.LONG)))
                .noDefault()
                .endRecord();
    }
}
