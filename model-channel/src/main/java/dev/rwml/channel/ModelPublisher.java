package dev.rwml.channel;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.worldmodel.artifact.ArtifactStore;
import dev.rwml.worldmodel.artifact.Artifacts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes model versions on a run's channel: the artifact's chunks on {@code
 * rwml.<run>.model-chunks} (key {@code <version>/<index>}, all on one partition), then the manifest
 * on {@code rwml.<run>.models} (key: the version as a decimal string) with the artifact reference
 * filled in from the chunk sends. The caller owns the producer's transaction: it begins one before
 * {@link #publish} and commits it afterwards, together with its consumer offsets, so a version and
 * its inputs become visible together or not at all.
 */
public final class ModelPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(ModelPublisher.class);

    private final ModelChannel channel;
    private final int chunkSizeBytes;
    private final Optional<ArtifactStore> store;
    private final long externalArtifactBytes;

    /**
     * Creates a publisher.
     *
     * @param channel topics and serdes
     * @param chunkSizeBytes artifact bytes per chunk record (at most 4 MiB; above the broker's
     *     default 1 MiB the chunk topic's max.message.bytes and the producer's max.request.size
     *     must be raised)
     * @param store where artifacts of at least {@code externalArtifactBytes} go instead of chunks
     * @param externalArtifactBytes the size from which {@code store} is used
     */
    public ModelPublisher(
            final ModelChannel channel,
            final int chunkSizeBytes,
            final Optional<ArtifactStore> store,
            final long externalArtifactBytes) {
        if (chunkSizeBytes < 1 || chunkSizeBytes > ModelChannel.MAX_CHUNK_BYTES) {
            throw new IllegalArgumentException(
                    "chunkSizeBytes must be between 1 and "
                            + ModelChannel.MAX_CHUNK_BYTES
                            + ", got "
                            + chunkSizeBytes);
        }
        this.channel = Objects.requireNonNull(channel, "channel");
        this.chunkSizeBytes = chunkSizeBytes;
        this.store = Objects.requireNonNull(store, "store");
        this.externalArtifactBytes = externalArtifactBytes;
    }

    /** A publisher that keeps every artifact on the chunk topic, in chunks of the default size. */
    public static ModelPublisher chunked(final ModelChannel channel) {
        return new ModelPublisher(
                channel, ModelChannel.DEFAULT_CHUNK_BYTES, Optional.empty(), Long.MAX_VALUE);
    }

    /**
     * Sends one version inside the producer's open transaction and returns the manifest as sent.
     *
     * @param producer a transactional producer (see {@link ModelChannel#producerConfig}) with a
     *     transaction begun by the caller
     * @param manifest the version's manifest; its artifact reference is replaced
     * @param format the artifact's format name, e.g. {@code rwml-checkpoint-v1}
     * @param artifact the artifact bytes
     * @param observer told after each chunk is sent
     */
    public ModelVersion publish(
            final Producer<byte[], byte[]> producer,
            final ModelVersion.Builder manifest,
            final String format,
            final byte[] artifact,
            final ChunkObserver observer) {
        final String run = manifest.getRun();
        final long version = manifest.getVersion();
        if (!channel.run().equals(run)) {
            throw new IllegalArgumentException(
                    "manifest of run '"
                            + run
                            + "' given to the channel of run '"
                            + channel.run()
                            + "'");
        }
        final ArtifactRef.Builder ref =
                ArtifactRef.newBuilder()
                        .setFormat(format)
                        .setSizeBytes(artifact.length)
                        .setSha256(Artifacts.sha256Hex(artifact))
                        .setChunkPartition(0)
                        .setFirstChunkOffset(-1)
                        .setUri(null);
        if (store.isPresent() && artifact.length >= externalArtifactBytes) {
            ref.setChunkCount(0).setUri(putExternal(run, version, artifact).toString());
        } else {
            sendChunks(producer, run, version, artifact, ref, observer);
        }
        final ModelVersion sent = manifest.setArtifact(ref.build()).build();
        producer.send(
                new ProducerRecord<>(
                        channel.modelsTopic(),
                        ModelChannel.keyBytes(Long.toString(version)),
                        channel.serializeManifest(sent)));
        LOG.info(
                "Sent model version {} of run {} ({} bytes, {} chunks, sha256 {}) in the open"
                        + " transaction",
                version,
                run,
                artifact.length,
                sent.getArtifact().getChunkCount(),
                sent.getArtifact().getSha256());
        return sent;
    }

    /**
     * Writes tombstones for the chunks of {@code old} inside the producer's open transaction, so
     * compaction of the chunk topic removes them. Its manifest stays, for lineage.
     */
    public void retire(final Producer<byte[], byte[]> producer, final ModelVersion old) {
        final ArtifactRef ref = old.getArtifact();
        for (int i = 0; i < ref.getChunkCount(); i++) {
            producer.send(
                    new ProducerRecord<>(
                            channel.chunksTopic(),
                            ref.getChunkPartition(),
                            ModelChannel.keyBytes(ModelChannel.chunkKey(old.getVersion(), i)),
                            null));
        }
        LOG.info(
                "Retiring the {} chunks of model version {} of run {}",
                ref.getChunkCount(),
                old.getVersion(),
                old.getRun());
    }

    private void sendChunks(
            final Producer<byte[], byte[]> producer,
            final String run,
            final long version,
            final byte[] artifact,
            final ArtifactRef.Builder ref,
            final ChunkObserver observer) {
        final int count = Math.max(1, (artifact.length + chunkSizeBytes - 1) / chunkSizeBytes);
        final int partition = choosePartition(producer, version);
        Future<RecordMetadata> first = null;
        for (int i = 0; i < count; i++) {
            final int from = i * chunkSizeBytes;
            final int to = Math.min(artifact.length, from + chunkSizeBytes);
            final ModelChunk chunk =
                    ModelChunk.newBuilder()
                            .setRun(run)
                            .setVersion(version)
                            .setIndex(i)
                            .setCount(count)
                            .setData(ByteBuffer.wrap(Arrays.copyOfRange(artifact, from, to)))
                            .build();
            final Future<RecordMetadata> sent =
                    producer.send(
                            new ProducerRecord<>(
                                    channel.chunksTopic(),
                                    partition,
                                    ModelChannel.keyBytes(ModelChannel.chunkKey(version, i)),
                                    channel.serializeChunk(chunk)));
            if (first == null) {
                first = sent;
            }
            observer.sent(version, i, count);
        }
        ref.setChunkCount(count).setChunkPartition(partition).setFirstChunkOffset(offsetOf(first));
    }

    private int choosePartition(final Producer<byte[], byte[]> producer, final long version) {
        // Versions spread over the chunk topic's partitions; all chunks of one stay together.
        final List<?> partitions = producer.partitionsFor(channel.chunksTopic());
        return partitions.isEmpty() ? 0 : (int) Math.floorMod(version, (long) partitions.size());
    }

    private static long offsetOf(final Future<RecordMetadata> first) {
        try {
            // Acknowledged inside the transaction, before the commit: the offset is final.
            return first.get().offset();
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for the first chunk's offset", e);
        } catch (final ExecutionException e) {
            throw new KafkaException(
                    "the first chunk was not acknowledged: " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    private URI putExternal(final String run, final long version, final byte[] artifact) {
        try {
            return store.orElseThrow().put(run, version, artifact);
        } catch (final IOException e) {
            throw new UncheckedIOException(
                    "could not store the artifact of version " + version + " of run " + run, e);
        }
    }
}
