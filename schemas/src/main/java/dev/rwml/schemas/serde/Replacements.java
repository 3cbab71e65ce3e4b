package dev.rwml.schemas.serde;

import java.util.Collection;
import java.util.Map;
import org.apache.avro.generic.IndexedRecord;

/** Whether a decoded event holds U+FFFD, the character Avro puts where bytes were not UTF-8. */
final class Replacements {

    private static final char REPLACEMENT = '\uFFFD';

    private Replacements() {}

    /** True when any string of the record, its lists, maps and nested records holds U+FFFD. */
    static boolean present(final Object value) {
        if (value instanceof String text) {
            return text.indexOf(REPLACEMENT) >= 0;
        }
        if (value instanceof CharSequence text) {
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) == REPLACEMENT) {
                    return true;
                }
            }
            return false;
        }
        if (value instanceof IndexedRecord record) {
            for (int i = 0; i < record.getSchema().getFields().size(); i++) {
                if (present(record.get(i))) {
                    return true;
                }
            }
            return false;
        }
        if (value instanceof Collection<?> items) {
            for (final Object item : items) {
                if (present(item)) {
                    return true;
                }
            }
            return false;
        }
        if (value instanceof Map<?, ?> map) {
            for (final Map.Entry<?, ?> e : map.entrySet()) {
                if (present(e.getKey()) || present(e.getValue())) {
                    return true;
                }
            }
        }
        return false;
    }
}
