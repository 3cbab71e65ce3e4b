package dev.rwml.env;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Unmodifiable map copies that iterate in the same order in every JVM.
 *
 * <p>{@code Map.of} and {@code Map.copyOf} iterate in an order salted per JVM, so a generator that
 * picks from their values, or a record that serialises them, gives other results for the same seed
 * in another process. Like {@code Map.copyOf}, both copies reject null keys and values.
 */
public final class StableMaps {

    private StableMaps() {}

    /** An unmodifiable copy that iterates in key order. */
    public static <K extends Comparable<? super K>, V> SortedMap<K, V> sorted(final Map<K, V> map) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(checked(map)));
    }

    /** An unmodifiable copy that iterates in the order of {@code map} itself. */
    public static <K, V> Map<K, V> ordered(final Map<K, V> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(checked(map)));
    }

    private static <K, V> Map<K, V> checked(final Map<K, V> map) {
        map.forEach(
                (k, v) -> {
                    Objects.requireNonNull(k, "map key");
                    Objects.requireNonNull(v, () -> "value of map key " + k);
                });
        return map;
    }
}
