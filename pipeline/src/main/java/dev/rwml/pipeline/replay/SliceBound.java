package dev.rwml.pipeline.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One end of a replay slice as the user wrote it: {@code earliest}, {@code latest}, an ISO-8601
 * instant, or per-partition offsets of {@code rwml.transitions} (inline {@code 0:120,1:98} or a
 * file with one {@code partition:offset} per line).
 *
 * @param kind which of the four forms
 * @param time the instant of {@link Kind#TIME}, else null
 * @param offsets the offsets of {@link Kind#OFFSETS} by partition, else empty
 */
public record SliceBound(Kind kind, Instant time, Map<Integer, Long> offsets) {

    /** The forms a bound takes. */
    public enum Kind {
        EARLIEST,
        LATEST,
        TIME,
        OFFSETS
    }

    /** The beginning of the log. */
    public static final SliceBound EARLIEST = new SliceBound(Kind.EARLIEST, null, Map.of());

    /** The end of the log when the replay starts. */
    public static final SliceBound LATEST = new SliceBound(Kind.LATEST, null, Map.of());

    /** Copies the offsets. */
    public SliceBound {
        offsets = Map.copyOf(offsets);
    }

    /** Per-partition offsets. */
    public static SliceBound offsets(final Map<Integer, Long> offsets) {
        return new SliceBound(Kind.OFFSETS, null, offsets);
    }

    /**
     * Parses {@code earliest}, {@code latest}, an ISO instant, {@code 0:120,1:98}, or the path of
     * an existing offsets file.
     */
    public static SliceBound parse(final String text) {
        final String value = text == null ? "" : text.trim();
        if (value.equalsIgnoreCase("earliest")) {
            return EARLIEST;
        }
        if (value.equalsIgnoreCase("latest")) {
            return LATEST;
        }
        if (value.matches("\\d+:\\d+(\\s*,\\s*\\d+:\\d+)*")) {
            return offsets(parseOffsets(value.split(","), value));
        }
        final Path file = Path.of(value);
        if (!value.isEmpty() && Files.isRegularFile(file)) {
            try {
                final String[] lines =
                        Files.readAllLines(file).stream()
                                .map(String::trim)
                                .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                                .toArray(String[]::new);
                return offsets(parseOffsets(lines, file.toString()));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read offsets file " + file, e);
            }
        }
        try {
            return new SliceBound(Kind.TIME, Instant.parse(value), Map.of());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "slice bound '"
                            + value
                            + "' is not earliest, latest, an ISO-8601 instant such as"
                            + " 2026-11-30T10:00:00Z, offsets such as 0:120,1:98, or an existing"
                            + " file of partition:offset lines",
                    e);
        }
    }

    private static Map<Integer, Long> parseOffsets(final String[] entries, final String source) {
        final Map<Integer, Long> out = new TreeMap<>();
        for (final String entry : entries) {
            final String[] parts = entry.trim().split(":");
            if (parts.length != 2
                    || !parts[0].trim().matches("\\d+")
                    || !parts[1].trim().matches("\\d+")) {
                throw new IllegalArgumentException(
                        "offsets in "
                                + source
                                + ": '"
                                + entry
                                + "' is not partition:offset (e.g. 0:120)");
            }
            final int partition = Integer.parseInt(parts[0].trim());
            if (out.put(partition, Long.parseLong(parts[1].trim())) != null) {
                throw new IllegalArgumentException(
                        "offsets in " + source + " name partition " + partition + " twice");
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case TIME -> time.toString();
            case OFFSETS -> offsets.toString();
            default -> kind.name().toLowerCase(Locale.ROOT);
        };
    }
}
