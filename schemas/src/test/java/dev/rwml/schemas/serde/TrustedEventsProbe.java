package dev.rwml.schemas.serde;

import dev.rwml.events.Transition;
import dev.rwml.schemas.SampleEvents;
import java.io.ByteArrayOutputStream;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Runs in a child JVM without {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES}: first shows that
 * plain Avro refuses to decode a Transition (it holds an enum), then that the event serde decodes
 * it; prints one line per step and exits 0 only when both held.
 */
public final class TrustedEventsProbe {
    private TrustedEventsProbe() {}

    public static void main(final String[] args) throws Exception {
        final Transition event = SampleEvents.transition(1, 10);
        try {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<>(Transition.class).write(event, encoder);
            encoder.flush();
            new SpecificDatumReader<>(Transition.class)
                    .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
            System.out.println("plain Avro decoded the event: the flag must be set");
            System.exit(2);
        } catch (SecurityException e) {
            System.out.println("plain Avro refused: " + e.getMessage());
        }
        final EventSerde<Transition> serde =
                EventSerdes.forValue(Transition.class, EventSerdes.registryConfig("mock://probe"));
        final Transition back =
                serde.deserializer().deserialize("t", serde.serializer().serialize("t", event));
        if (!event.equals(back)) {
            System.out.println("the serde changed the event");
            System.exit(3);
        }
        System.out.println("serde decoded the event");
    }
}
