package dev.rwml.pipeline.bench;

import dev.rwml.pipeline.replay.SliceBound;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a rerun of the bench resumes from: {@code bench.properties} (the settings that must match
 * and each seed's data slice) and the markers of finished steps under {@code done/}.
 *
 * <p>The file keeps the format of the first bench: {@code setting.<name>=<value>} and {@code
 * slice-s<seed>.from} / {@code .until} as {@code partition:offset} pairs joined by commas (seed 0:
 * the filter model's validation slice).
 */
final class BenchState {

    static final String FILE = "bench.properties";

    /** The slice number of the filter model's validation slice (seeds count from 1). */
    static final int VALIDATION = 0;

    private static final String SETTING = "setting.";
    private static final Pattern SLICE_KEY = Pattern.compile("slice-s(\\d+)\\.(from|until)");
    private static final String COMMENT = "rwml bench: settings and the offsets of its data slices";

    /**
     * A step that writes a marker under {@code done/} when it finishes.
     *
     * @param name the marker's file name
     */
    record Step(String name) {
        static final Step PRETRAINING = new Step("pretraining");
        static final Step BASE = new Step("base");
        static final Step FILTER_MODEL = new Step("filter-model");

        /** Producing seed {@code seed}'s data slice. */
        static Step slice(final int seed) {
            return new Step("slice-s" + seed);
        }

        /** Training {@code arm} on seed {@code seed}'s slice. */
        static Step arm(final Arm arm, final int seed) {
            return new Step("arm-" + arm.id() + "-s" + seed);
        }
    }

    /**
     * Where one seed's data slice lies in {@code rwml.transitions}.
     *
     * @param from the end offsets by partition before it was produced
     * @param until the end offsets by partition after it was produced
     */
    record Slice(Map<Integer, Long> from, Map<Integer, Long> until) {
        Slice {
            from = sorted(from);
            until = sorted(until);
        }

        /** The offsets the slice spans: its transitions and, at most, their transaction markers. */
        long transitions() {
            long n = 0;
            for (final Map.Entry<Integer, Long> e : until.entrySet()) {
                n += e.getValue() - from.getOrDefault(e.getKey(), e.getValue());
            }
            return n;
        }

        /** The offsets as the file and the progress lines write them: {@code 0:12,1:30}. */
        static String text(final Map<Integer, Long> offsets) {
            final StringBuilder b = new StringBuilder();
            offsets.forEach(
                    (p, o) -> b.append(b.length() == 0 ? "" : ",").append(p).append(':').append(o));
            return b.toString();
        }

        private static Map<Integer, Long> sorted(final Map<Integer, Long> offsets) {
            return Collections.unmodifiableMap(new TreeMap<>(offsets));
        }
    }

    private final Path dir;
    private final Map<String, String> settings;
    private final Map<Integer, Slice> slices;

    private BenchState(
            final Path dir, final Map<String, String> settings, final Map<Integer, Slice> slices) {
        this.dir = dir;
        this.settings = settings;
        this.slices = slices;
    }

    /**
     * Opens the state under {@code dir}, refuses settings that differ from those it was started
     * with, and records {@code identity} so that the next rerun is checked against it.
     */
    static BenchState resume(final Path dir, final Map<String, String> identity)
            throws IOException {
        Files.createDirectories(dir.resolve("done"));
        final BenchState state = load(dir);
        identity.forEach(
                (name, value) -> {
                    final String recorded = state.settings.get(name);
                    if (recorded != null && !recorded.equals(value)) {
                        throw new IllegalArgumentException(
                                "the bench in "
                                        + dir
                                        + " was started with "
                                        + name
                                        + "="
                                        + recorded
                                        + ", not "
                                        + value
                                        + "; resume it with the same options or use another"
                                        + " --dir");
                    }
                });
        state.settings.putAll(identity);
        state.save();
        return state;
    }

    /** Seed {@code seed}'s slice, which must have been recorded. */
    Slice slice(final int seed) {
        final Slice slice = slices.get(seed);
        if (slice == null) {
            throw unreadable(dir.resolve(FILE), "it has no offsets of seed " + seed + "'s slice");
        }
        return slice;
    }

    /** Records seed {@code seed}'s slice and writes the file at once. */
    void recordSlice(final int seed, final Slice slice) {
        slices.put(seed, slice);
        save();
    }

    /** The value {@code step}'s marker holds, if the step finished. */
    Optional<String> done(final Step step) {
        final Path marker = marker(step);
        if (!Files.exists(marker)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(marker).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Marks {@code step} finished, with {@code value} to report when a rerun skips it. */
    void markDone(final Step step, final String value) throws IOException {
        Files.writeString(marker(step), value + "\n");
    }

    private Path marker(final Step step) {
        return dir.resolve("done").resolve(step.name());
    }

    private static BenchState load(final Path dir) throws IOException {
        final Map<String, String> settings = new TreeMap<>();
        final Map<Integer, Slice> slices = new TreeMap<>();
        final Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return new BenchState(dir, settings, slices);
        }
        final Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        final Map<Integer, Map<String, Map<Integer, Long>>> ends = new TreeMap<>();
        for (final String key : p.stringPropertyNames()) {
            final String value = p.getProperty(key);
            final Matcher slice = SLICE_KEY.matcher(key);
            if (key.startsWith(SETTING)) {
                settings.put(key.substring(SETTING.length()), value);
            } else if (slice.matches()) {
                ends.computeIfAbsent(Integer.parseInt(slice.group(1)), s -> new TreeMap<>())
                        .put(slice.group(2), offsets(file, key, value));
            } else {
                throw unreadable(file, "it has the unknown key " + key);
            }
        }
        ends.forEach(
                (seed, end) -> {
                    if (end.size() != 2) {
                        throw unreadable(file, "seed " + seed + "'s slice lacks one of its ends");
                    }
                    slices.put(seed, new Slice(end.get("from"), end.get("until")));
                });
        return new BenchState(dir, settings, slices);
    }

    private static Map<Integer, Long> offsets(
            final Path file, final String key, final String text) {
        try {
            final SliceBound bound = SliceBound.parse(text);
            if (bound.kind() == SliceBound.Kind.OFFSETS) {
                return bound.offsets();
            }
        } catch (IllegalArgumentException e) {
            // the message below says what the value should be
        }
        throw unreadable(file, key + "=" + text + " is not partition:offset pairs");
    }

    private static IllegalStateException unreadable(final Path file, final String why) {
        return new IllegalStateException(
                "cannot resume from "
                        + file
                        + ": "
                        + why
                        + "; start the bench again in an empty --dir");
    }

    private void save() {
        final Properties p = new Properties();
        settings.forEach((name, value) -> p.setProperty(SETTING + name, value));
        slices.forEach(
                (seed, slice) -> {
                    p.setProperty("slice-s" + seed + ".from", Slice.text(slice.from()));
                    p.setProperty("slice-s" + seed + ".until", Slice.text(slice.until()));
                });
        try (Writer w = Files.newBufferedWriter(dir.resolve(FILE), StandardCharsets.UTF_8)) {
            p.store(w, COMMENT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + FILE, e);
        }
    }
}
