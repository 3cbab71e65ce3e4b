package dev.rwml.schemas.serde;

import java.util.ArrayList;
import java.util.List;

/** Java arrays as the lists an Avro {@code array} field of the events takes. */
public final class AvroArrays {

    private AvroArrays() {}

    /** The values of an {@code array<int>} field (token ids). */
    public static List<Integer> ints(final int[] values) {
        final List<Integer> list = new ArrayList<>(values.length);
        for (final int value : values) {
            list.add(value);
        }
        return list;
    }

    /** The values of an {@code array<float>} field (log-probabilities). */
    public static List<Float> floats(final float[] values) {
        final List<Float> list = new ArrayList<>(values.length);
        for (final float value : values) {
            list.add(value);
        }
        return list;
    }
}
