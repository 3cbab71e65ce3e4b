package dev.rwml.evaluation;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.events.ModelVersion;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The models to evaluate and their bases: versions of runs read from their models topics, and
 * checkpoint zips exported by {@code rwml models export} ({@code <run>-v<version>.zip}; the base of
 * such a file is {@code <run>-v0.zip} in the same directory).
 */
public final class ModelCatalog implements AutoCloseable {

    private static final Pattern EXPORTED = Pattern.compile("(.+)-v(\\d+)\\.zip");
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Connection connection;
    private final Map<String, ModelChannel> channels = new LinkedHashMap<>();
    private final Map<String, ModelChannelReader> readers = new LinkedHashMap<>();
    private final List<ModelRef> models = new ArrayList<>();
    private final Map<String, Path> exportedBases = new LinkedHashMap<>();
    private final CheckpointModelLoader loader = CheckpointModelLoader.standard();

    /** A catalog reading runs over {@code connection} (null when only files are evaluated). */
    public ModelCatalog(final Connection connection) {
        this.connection = connection;
    }

    /** The models added so far, in order. */
    public List<ModelRef> models() {
        return List.copyOf(models);
    }

    /**
     * Adds versions of a run: numbers, {@code latest}, or {@code all}.
     *
     * @throws IllegalArgumentException when the run has no version or a version is missing
     */
    public void addRun(final String run, final List<String> versions) {
        final List<ModelVersion> manifests = reader(run).manifests();
        if (manifests.isEmpty()) {
            throw new IllegalArgumentException(
                    "run "
                            + run
                            + " has no model version on "
                            + TopicCatalog.defaults().run(run).models().name()
                            + "; publish version 0 with `rwml model init --run "
                            + run
                            + "`");
        }
        final TreeSet<Long> known = new TreeSet<>();
        manifests.forEach(m -> known.add(m.getVersion()));
        final List<Long> chosen = new ArrayList<>();
        for (final String v : versions) {
            final String text = v.strip().toLowerCase(Locale.ROOT);
            if (text.equals("latest")) {
                add(chosen, known.last());
            } else if (text.equals("all")) {
                known.forEach(k -> add(chosen, k));
            } else {
                final long version;
                try {
                    version = Long.parseLong(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(
                            "--versions takes numbers, latest or all, got '" + v + "'", e);
                }
                if (!known.contains(version)) {
                    throw new IllegalArgumentException(
                            "run "
                                    + run
                                    + " has no version "
                                    + version
                                    + "; it has "
                                    + summary(known));
                }
                add(chosen, version);
            }
        }
        for (final long version : chosen) {
            models.add(new ModelRef(run + "@" + version, run, version, null));
        }
    }

    /**
     * Adds every {@code *.zip} checkpoint of a directory, ordered by run and version.
     *
     * @throws IllegalArgumentException when the directory holds none
     */
    public void addDirectory(final Path dir) {
        final List<Path> zips;
        try (Stream<Path> files = Files.list(dir)) {
            zips = files.filter(p -> p.toString().endsWith(".zip")).sorted().toList();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot list --model-dir " + dir + ": " + e.getMessage(), e);
        }
        if (zips.isEmpty()) {
            throw new IllegalArgumentException(
                    "--model-dir "
                            + dir
                            + " holds no checkpoint zip; write some with `rwml models export --run"
                            + " R --version N --dir "
                            + dir
                            + "`");
        }
        final List<ModelRef> found = new ArrayList<>();
        for (final Path zip : zips) {
            final String name = zip.getFileName().toString();
            final Matcher m = EXPORTED.matcher(name);
            if (m.matches()) {
                final String run = m.group(1);
                final long version = Long.parseLong(m.group(2));
                found.add(new ModelRef(run + "@" + version, run, version, zip));
                if (version == 0) {
                    exportedBases.put(run, zip);
                }
            } else {
                final Checkpoint c = read(zip);
                final String label = name.substring(0, name.length() - ".zip".length());
                found.add(new ModelRef(label, label, c.version(), zip));
            }
        }
        found.sort(
                (a, b) ->
                        a.run().equals(b.run())
                                ? Long.compare(a.version(), b.version())
                                : a.run().compareTo(b.run()));
        models.addAll(found);
    }

    /**
     * Loads a model in any artifact format: a LoRA adapter of a run loads over its run's version 0,
     * which the catalog keeps for the run's other adapters.
     *
     * @throws IllegalArgumentException for a LoRA adapter exported to a file (it needs its base)
     */
    public EvalModel open(final ModelRef ref) {
        if (ref.file() != null) {
            final byte[] bytes = readBytes(ref.file());
            return switch (ModelFormat.of(bytes)) {
                case SMALL -> EvalModel.small(ref.version(), read(ref.file(), bytes));
                case HF ->
                        EvalModel.sampled(
                                loader.fromHf(ref.version(), HfCheckpoint.fromBytes(bytes)));
                case LORA ->
                        throw new IllegalArgumentException(
                                ref.file()
                                        + " is a LoRA adapter without its base: evaluate it from"
                                        + " its run (--run), or export it merged with `rwml models"
                                        + " export --hf`");
            };
        }
        final ModelChannelReader reader = reader(ref.run());
        final VerifiedArtifact artifact;
        try {
            artifact = reader.fetch(ref.version());
        } catch (ArtifactRejectedException e) {
            throw new IllegalStateException(
                    "cannot read version " + ref.version() + " of run " + ref.run() + ": " + e, e);
        }
        return ModelFormat.of(artifact.bytes()) == ModelFormat.SMALL
                ? EvalModel.small(ref.version(), Checkpoint.fromBytes(artifact.bytes()))
                : EvalModel.sampled(loader.load(artifact, reader));
    }

    /** The base (version 0) of a model's run, when there is one to read. */
    public Optional<ModelRef> base(final ModelRef ref) {
        if (ref.file() == null) {
            return Optional.of(new ModelRef(ref.run() + "@0", ref.run(), 0, null));
        }
        final Path base = exportedBases.get(ref.run());
        return base == null
                ? Optional.empty()
                : Optional.of(new ModelRef(ref.run() + "@0", ref.run(), 0, base));
    }

    private static void add(final List<Long> chosen, final long version) {
        if (!chosen.contains(version)) {
            chosen.add(version);
        }
    }

    private static String summary(final TreeSet<Long> known) {
        return known.size() <= 12
                ? "versions " + known
                : "versions " + known.first() + " to " + known.last() + " (" + known.size() + ")";
    }

    private static byte[] readBytes(final Path zip) {
        try {
            return Files.readAllBytes(zip);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + zip, e);
        }
    }

    private static Checkpoint read(final Path zip) {
        return read(zip, readBytes(zip));
    }

    private static Checkpoint read(final Path zip, final byte[] bytes) {
        try {
            return Checkpoint.fromBytes(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    zip
                            + " is no rwml checkpoint ("
                            + e.getMessage()
                            + "); export one with `rwml models export`",
                    e);
        }
    }

    private ModelChannelReader reader(final String run) {
        if (connection == null) {
            throw new IllegalStateException("reading run " + run + " needs a cluster connection");
        }
        return readers.computeIfAbsent(
                run,
                r -> {
                    final ModelChannel channel = ModelChannel.of(connection, r);
                    channels.put(r, channel);
                    return new ModelChannelReader(channel, Optional.empty(), TIMEOUT);
                });
    }

    @Override
    public void close() {
        readers.values().forEach(ModelChannelReader::close);
        channels.values().forEach(ModelChannel::close);
        loader.close();
    }
}
