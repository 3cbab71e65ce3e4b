package dev.rwml.channel;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.ArtifactStore;
import dev.rwml.worldmodel.artifact.FileArtifactStore;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a run's channel once: every committed manifest, the latest version, or one version's
 * verified artifact. Used by the trainer at start-up and by {@code rwml models list|export}. Not
 * thread-safe (it owns two consumers); close it when done.
 */
public final class ModelChannelReader implements ArtifactSource, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelChannelReader.class);

    private final ModelChannel channel;
    private final Optional<ArtifactStore> store;
    private final Consumer<String, byte[]> manifestConsumer;
    private final Consumer<String, byte[]> chunkConsumer;
    private final Duration timeout;

    /**
     * Creates a reader.
     *
     * @param store where artifacts published with a URI are read from (a {@link FileArtifactStore}
     *     is used for {@code file:} URIs when empty)
     * @param timeout the longest a single read may wait for the broker
     */
    public ModelChannelReader(
            final ModelChannel channel,
            final Optional<ArtifactStore> store,
            final Duration timeout) {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.store = Objects.requireNonNull(store, "store");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.manifestConsumer = new KafkaConsumer<>(consumerConfig("manifests"));
        this.chunkConsumer = new KafkaConsumer<>(consumerConfig("chunks"));
    }

    private Map<String, Object> consumerConfig(final String role) {
        final Map<String, Object> c =
                channel.consumerConfig("rwml-channel-reader-" + channel.run() + "-" + role);
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return c;
    }

    /** Every committed manifest of the run, ascending by version (empty before version 0). */
    public List<ModelVersion> manifests() {
        final List<TopicPartition> partitions = partitions(manifestConsumer, channel.modelsTopic());
        if (partitions.isEmpty()) {
            return List.of();
        }
        manifestConsumer.assign(partitions);
        manifestConsumer.seekToBeginning(partitions);
        // For a read_committed consumer the end offset is the last stable offset: everything
        // before it is committed or aborted, nothing after it is visible yet.
        final Map<TopicPartition, Long> end = manifestConsumer.endOffsets(partitions, timeout);
        final TreeMap<Long, ModelVersion> byVersion = new TreeMap<>();
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!reached(manifestConsumer, end)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "timed out after "
                                + timeout
                                + " reading "
                                + channel.modelsTopic()
                                + "; is the broker at "
                                + channel.bootstrapServers()
                                + " reachable?");
            }
            for (final ConsumerRecord<String, byte[]> r :
                    manifestConsumer.poll(Duration.ofMillis(200))) {
                if (r.value() != null) {
                    final ModelVersion m = channel.deserializeManifest(r.value());
                    byVersion.put(m.getVersion(), m);
                }
            }
        }
        return new ArrayList<>(byVersion.values());
    }

    /** The manifest of the highest committed version, if any. */
    public Optional<ModelVersion> latestManifest() {
        final List<ModelVersion> all = manifests();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** The manifest of {@code version}, if committed. */
    public Optional<ModelVersion> manifest(final long version) {
        return manifests().stream().filter(m -> m.getVersion() == version).findFirst();
    }

    /** The latest version's verified artifact, if the run has any version. */
    public Optional<VerifiedArtifact> latest() throws ArtifactRejectedException {
        final Optional<ModelVersion> m = latestManifest();
        return m.isEmpty() ? Optional.empty() : Optional.of(fetch(m.get()));
    }

    /**
     * The verified artifact of {@code version}.
     *
     * @throws ArtifactRejectedException when the version does not exist, its chunks are gone or its
     *     bytes do not match the manifest
     */
    @Override
    public VerifiedArtifact fetch(final long version) throws ArtifactRejectedException {
        final ModelVersion m =
                manifest(version)
                        .orElseThrow(
                                () ->
                                        new ArtifactRejectedException(
                                                channel.run(),
                                                version,
                                                "no committed manifest on "
                                                        + channel.modelsTopic()
                                                        + "; `rwml models list` shows the versions"));
        return fetch(m);
    }

    /** Reads and verifies the artifact that {@code manifest} points to. */
    public VerifiedArtifact fetch(final ModelVersion manifest) throws ArtifactRejectedException {
        final ArtifactRef ref = manifest.getArtifact();
        final byte[] bytes = ref.getUri() != null ? readExternal(manifest) : readChunks(manifest);
        return VerifiedArtifact.verify(manifest, bytes);
    }

    private byte[] readExternal(final ModelVersion manifest) throws ArtifactRejectedException {
        final URI uri = URI.create(manifest.getArtifact().getUri());
        final ArtifactStore source = store.orElseGet(() -> new FileArtifactStore(Path.of(".")));
        try {
            return source.open(uri);
        } catch (final IOException e) {
            throw new ArtifactRejectedException(
                    manifest.getRun(),
                    manifest.getVersion(),
                    "cannot read the artifact at " + uri + ": " + e.getMessage());
        }
    }

    private byte[] readChunks(final ModelVersion manifest) throws ArtifactRejectedException {
        final ArtifactRef ref = manifest.getArtifact();
        final long version = manifest.getVersion();
        final int count = ref.getChunkCount();
        final TopicPartition tp =
                new TopicPartition(channel.chunksTopic(), ref.getChunkPartition());
        chunkConsumer.assign(List.of(tp));
        chunkConsumer.seek(tp, Math.max(0, ref.getFirstChunkOffset()));
        final byte[][] parts = new byte[count][];
        int found = 0;
        final String prefix = version + "/";
        final long deadline = System.nanoTime() + timeout.toNanos();
        long end = chunkConsumer.endOffsets(List.of(tp), timeout).get(tp);
        while (found < count) {
            if (chunkConsumer.position(tp, timeout) >= end) {
                end = chunkConsumer.endOffsets(List.of(tp), timeout).get(tp);
                if (chunkConsumer.position(tp, timeout) >= end) {
                    throw missing(manifest, found, "reached the end of " + tp);
                }
            }
            if (System.nanoTime() > deadline) {
                throw missing(manifest, found, "timed out after " + timeout);
            }
            for (final ConsumerRecord<String, byte[]> r :
                    chunkConsumer.poll(Duration.ofMillis(200))) {
                if (r.key() == null || !r.key().startsWith(prefix) || r.value() == null) {
                    continue;
                }
                final ModelChunk chunk = channel.deserializeChunk(r.value());
                final int i = chunk.getIndex();
                if (chunk.getVersion() == version && i >= 0 && i < count && parts[i] == null) {
                    parts[i] = toArray(chunk.getData());
                    found++;
                }
            }
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream((int) ref.getSizeBytes());
        for (final byte[] part : parts) {
            out.writeBytes(part);
        }
        LOG.debug("Read {} chunks of version {} from {}", count, version, tp);
        return out.toByteArray();
    }

    private static ArtifactRejectedException missing(
            final ModelVersion m, final int found, final String why) {
        return new ArtifactRejectedException(
                m.getRun(),
                m.getVersion(),
                "found "
                        + found
                        + " of its "
                        + m.getArtifact().getChunkCount()
                        + " chunks ("
                        + why
                        + "); retention pruned them or the chunk topic was truncated: use a newer"
                        + " version");
    }

    private static byte[] toArray(final ByteBuffer data) {
        final ByteBuffer b = data.duplicate();
        final byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private List<TopicPartition> partitions(
            final Consumer<String, byte[]> consumer, final String topic) {
        final List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        final List<TopicPartition> tps = new ArrayList<>();
        if (infos != null) {
            infos.stream()
                    .sorted(Comparator.comparingInt(PartitionInfo::partition))
                    .forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
        }
        return tps;
    }

    private boolean reached(
            final Consumer<String, byte[]> consumer, final Map<TopicPartition, Long> end) {
        for (final Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), timeout) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        manifestConsumer.close();
        chunkConsumer.close();
    }
}
