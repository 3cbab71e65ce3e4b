package dev.rwml.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelChunk;
import dev.rwml.events.ModelVersion;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.artifact.Artifacts;
import dev.rwml.worldmodel.artifact.ChannelFixtures;
import dev.rwml.worldmodel.artifact.FileArtifactStore;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The channel end to end on the embedded broker and registry. */
class ModelChannelIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String STAGE = "prediction";

    @TempDir Path dir;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(final T c) {
        closeables.add(c);
        return c;
    }

    /** A follower of the channel from its start that polls every 100 ms. */
    private ModelFollower follow(
            final ModelChannel channel, final Consumer<VerifiedArtifact> onVersion) {
        return closeLater(
                ModelFollower.start(
                        channel,
                        Optional.empty(),
                        (artifact, versions) -> onVersion.accept(artifact),
                        Duration.ofMillis(100),
                        Optional.of(StageName.parse(STAGE))));
    }

    /** A fresh run with its topics, so tests do not see each other's versions. */
    private ModelChannel newChannel() {
        final String run = "channel-it-" + RUNS.incrementAndGet();
        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.forRun(run));
        }
        return closeLater(
                ModelChannel.of(
                        Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()), run));
    }

    private KafkaProducer<byte[], byte[]> producer(final ModelChannel channel) {
        final KafkaProducer<byte[], byte[]> p =
                closeLater(new KafkaProducer<>(channel.producerConfig("it-" + channel.run())));
        p.initTransactions();
        return p;
    }

    private static ModelVersion publish(
            final ModelPublisher publisher,
            final KafkaProducer<byte[], byte[]> producer,
            final ModelChannel channel,
            final long version,
            final byte[] bytes) {
        producer.beginTransaction();
        final ModelVersion sent =
                publisher.publish(
                        producer,
                        ChannelFixtures.manifest(channel.run(), version),
                        "test",
                        bytes,
                        ChunkObserver.NONE);
        producer.commitTransaction();
        return sent;
    }

    private static ModelPublisher smallChunks(final ModelChannel channel) {
        return new ModelPublisher(channel, 4096, Optional.empty(), Long.MAX_VALUE);
    }

    @Test
    void shouldFollowPublishedVersionsAndHandOverTheirExactBytes() throws Exception {
        final ModelChannel channel = newChannel();
        final ModelPublisher publisher = smallChunks(channel);
        final KafkaProducer<byte[], byte[]> producer = producer(channel);
        final List<VerifiedArtifact> seen = new CopyOnWriteArrayList<>();
        final ModelFollower follower = follow(channel, seen::add);
        assertThat(follower.status()).isEqualTo("waiting for version 0 of run " + channel.run());

        final byte[] v0 = ChannelFixtures.artifact(10_000, 0);
        final ModelVersion sent = publish(publisher, producer, channel, 0, v0);
        assertThat(sent.getArtifact().getChunkCount()).isEqualTo(3);
        assertThat(sent.getArtifact().getFirstChunkOffset()).isGreaterThanOrEqualTo(0);
        await().atMost(WAIT).until(() -> follower.currentVersion() == 0);

        final byte[] v1 = ChannelFixtures.artifact(9_000, 1);
        publish(publisher, producer, channel, 1, v1);
        await().atMost(WAIT).until(() -> follower.currentVersion() == 1);

        assertThat(seen).extracting(VerifiedArtifact::version).containsExactly(0L, 1L);
        assertThat(seen.get(0).bytes()).isEqualTo(v0);
        assertThat(seen.get(1).bytes()).isEqualTo(v1);
        assertThat(follower.rejectedCount()).isZero();
        assertThat(follower.status()).contains("at version 1");

        final ModelChannelReader reader =
                closeLater(new ModelChannelReader(channel, Optional.empty(), WAIT));
        assertThat(reader.manifests()).extracting(ModelVersion::getVersion).containsExactly(0L, 1L);
        assertThat(reader.latest()).map(VerifiedArtifact::bytes).contains(v1);
    }

    @Test
    void shouldRejectEachCorruptArtifactKeepTheCurrentVersionAndDeadLetterWhy() throws Exception {
        final ModelChannel channel = newChannel();
        final ModelPublisher publisher = smallChunks(channel);
        final KafkaProducer<byte[], byte[]> producer = producer(channel);
        final List<Long> loaded = new CopyOnWriteArrayList<>();
        final ModelFollower follower = follow(channel, a -> loaded.add(a.version()));
        final ModelVersion v0 =
                publish(publisher, producer, channel, 0, ChannelFixtures.artifact(10_000, 0));
        await().atMost(WAIT).until(() -> follower.currentVersion() == 0);

        // Version 1: its chunk holds one artifact, its manifest claims another artifact's hash.
        final byte[] one = ChannelFixtures.artifact(3_000, 1);
        sendCorrupt(producer, channel, v0, 1, List.of(one), one.length, 1, sha(99));
        await().atMost(WAIT).until(() -> follower.rejectedCount() == 1);
        // Version 2: the manifest is right, one byte of its second chunk is flipped on the way.
        final byte[] two = ChannelFixtures.artifact(6_000, 2);
        final byte[] flipped = Arrays.copyOfRange(two, 3_000, 6_000);
        flipped[100] ^= 0x10;
        sendCorrupt(
                producer,
                channel,
                v0,
                2,
                List.of(Arrays.copyOfRange(two, 0, 3_000), flipped),
                two.length,
                2,
                Artifacts.sha256Hex(two));
        await().atMost(WAIT).until(() -> follower.rejectedCount() == 2);
        // Version 3: the manifest names two chunks, only the first was ever written.
        final byte[] three = ChannelFixtures.artifact(6_000, 3);
        sendCorrupt(
                producer,
                channel,
                v0,
                3,
                List.of(Arrays.copyOfRange(three, 0, 3_000)),
                three.length,
                2,
                Artifacts.sha256Hex(three));
        await().atMost(WAIT).until(() -> follower.rejectedCount() == 3);
        assertThat(follower.currentVersion()).isZero();
        assertThat(loaded).containsExactly(0L);

        final List<ConsumerRecord<byte[], byte[]>> letters =
                await().atMost(WAIT)
                        .until(
                                () -> readAll(channel, channel.deadLetterTopic().name()),
                                l -> l.size() == 3);
        final EventSerde<DeadLetter> serde =
                closeLater(channel.deadLetterTopic().valueSerde(channel.serdeConfig()));
        final List<String> messages = new ArrayList<>();
        for (final ConsumerRecord<byte[], byte[]> r : letters) {
            final DeadLetter letter = serde.deserializer().deserialize(r.topic(), r.value());
            assertThat(header(r, DeadLetters.REASON_HEADER)).isEqualTo(DeadLetters.MODEL_REJECTED);
            assertThat(letter.getStage()).isEqualTo(STAGE);
            assertThat(letter.getSourceTopic()).isEqualTo(channel.modelsTopic());
            assertThat(letter.getErrorMessage()).endsWith("(keeping version 0)");
            messages.add(letter.getErrorMessage());
        }
        assertThat(messages.get(0)).startsWith("model version 1 of run").contains("SHA-256");
        assertThat(messages.get(1)).startsWith("model version 2 of run").contains("SHA-256");
        assertThat(messages.get(2))
                .startsWith("model version 3 of run")
                .contains("found 1 of its 2 chunks");

        publish(publisher, producer, channel, 4, ChannelFixtures.artifact(5_000, 4));
        await().atMost(WAIT).until(() -> follower.currentVersion() == 4);
        assertThat(loaded).containsExactly(0L, 4L);
    }

    /** Writes {@code parts} as chunks of {@code version} and a manifest with the given claims. */
    private static void sendCorrupt(
            final KafkaProducer<byte[], byte[]> producer,
            final ModelChannel channel,
            final ModelVersion template,
            final long version,
            final List<byte[]> parts,
            final long claimedSize,
            final int claimedChunks,
            final String claimedSha)
            throws Exception {
        producer.beginTransaction();
        long first = -1;
        for (int i = 0; i < parts.size(); i++) {
            final long offset =
                    producer.send(
                                    new ProducerRecord<>(
                                            channel.chunksTopic(),
                                            0,
                                            ModelChannel.keyBytes(
                                                    ModelChannel.chunkKey(version, i)),
                                            channel.serializeChunk(
                                                    ModelChunk.newBuilder()
                                                            .setRun(channel.run())
                                                            .setVersion(version)
                                                            .setIndex(i)
                                                            .setCount(claimedChunks)
                                                            .setData(ByteBuffer.wrap(parts.get(i)))
                                                            .build())))
                            .get()
                            .offset();
            first = first < 0 ? offset : first;
        }
        final ArtifactRef claims =
                ArtifactRef.newBuilder(template.getArtifact())
                        .setSizeBytes(claimedSize)
                        .setChunkCount(claimedChunks)
                        .setFirstChunkOffset(first)
                        .setSha256(claimedSha)
                        .build();
        producer.send(
                new ProducerRecord<>(
                        channel.modelsTopic(),
                        ModelChannel.keyBytes(Long.toString(version)),
                        channel.serializeManifest(
                                ChannelFixtures.manifest(channel.run(), version)
                                        .setArtifact(claims)
                                        .build())));
        producer.commitTransaction();
    }

    private static String sha(final int seed) {
        return Artifacts.sha256Hex(ChannelFixtures.artifact(3_000, seed));
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(
            final ModelChannel channel, final String topic) {
        final Map<String, Object> config = new HashMap<>(channel.consumerConfig("it-read"));
        config.put("key.deserializer", ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            final List<ConsumerRecord<byte[], byte[]>> out =
                    new ArrayList<>(TestClients.readToEnd(consumer, topic));
            out.sort(Comparator.comparingLong(ConsumerRecord::timestamp));
            return out;
        }
    }

    private static String header(final ConsumerRecord<byte[], byte[]> r, final String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldNeverShowAVersionWhoseTransactionAborted() throws Exception {
        final ModelChannel channel = newChannel();
        final ModelPublisher publisher = smallChunks(channel);
        final KafkaProducer<byte[], byte[]> producer = producer(channel);
        final List<Long> loaded = new CopyOnWriteArrayList<>();
        final ModelFollower follower = follow(channel, a -> loaded.add(a.version()));
        publish(publisher, producer, channel, 0, ChannelFixtures.artifact(6_000, 0));

        producer.beginTransaction();
        publisher.publish(
                producer,
                ChannelFixtures.manifest(channel.run(), 1),
                "test",
                ChannelFixtures.artifact(6_000, 1),
                ChunkObserver.NONE);
        producer.flush();
        producer.abortTransaction();

        final byte[] v1 = ChannelFixtures.artifact(7_000, 11);
        publish(publisher, producer, channel, 1, v1);
        publish(publisher, producer, channel, 2, ChannelFixtures.artifact(7_000, 2));
        await().atMost(WAIT).until(() -> follower.currentVersion() == 2);

        final ModelChannelReader reader =
                closeLater(new ModelChannelReader(channel, Optional.empty(), WAIT));
        assertThat(reader.manifests())
                .extracting(ModelVersion::getVersion)
                .containsExactly(0L, 1L, 2L);
        // The retried version 1 is the committed one, not the aborted bytes.
        assertThat(reader.fetch(1).bytes()).isEqualTo(v1);
        assertThat(loaded).doesNotHaveDuplicates().isSorted();
        assertThat(follower.rejectedCount()).isZero();
    }

    @Test
    void shouldTombstoneOnlyChunksOfVersionsOutsideTheWindowAndKeepVersionZero() throws Exception {
        final ModelChannel channel = newChannel();
        final ModelPublisher publisher = smallChunks(channel);
        final ChunkRetention retention = new ChunkRetention(2);
        final KafkaProducer<byte[], byte[]> producer = producer(channel);
        final List<ModelVersion> published = new ArrayList<>();
        for (int v = 0; v <= 5; v++) {
            producer.beginTransaction();
            final Optional<ModelVersion> retire = retention.toRetire(published);
            published.add(
                    publisher.publish(
                            producer,
                            ChannelFixtures.manifest(channel.run(), v),
                            "test",
                            ChannelFixtures.artifact(9_000, v),
                            ChunkObserver.NONE));
            retire.ifPresent(old -> publisher.retire(producer, old));
            producer.commitTransaction();
        }

        final Map<String, Boolean> lastIsTombstone = readChunkKeys(channel);
        final List<Long> pruned = new ArrayList<>();
        lastIsTombstone.forEach(
                (key, tomb) -> {
                    final long version = Long.parseLong(key.substring(0, key.indexOf('/')));
                    if (tomb && !pruned.contains(version)) {
                        pruned.add(version);
                    }
                });
        assertThat(pruned).containsExactlyInAnyOrder(1L, 2L, 3L);

        final ModelChannelReader reader =
                closeLater(new ModelChannelReader(channel, Optional.empty(), WAIT));
        assertThat(reader.fetch(5).bytes()).isEqualTo(ChannelFixtures.artifact(9_000, 5));
        assertThat(reader.fetch(4).bytes()).isEqualTo(ChannelFixtures.artifact(9_000, 4));
        assertThat(reader.fetch(0).bytes()).isEqualTo(ChannelFixtures.artifact(9_000, 0));
        assertThat(reader.manifests()).hasSize(6);
    }

    @Test
    void shouldStoreLargeArtifactsAtAUriAndStillVerifyThem() throws Exception {
        final ModelChannel channel = newChannel();
        final FileArtifactStore store = new FileArtifactStore(dir);
        final ModelPublisher publisher =
                new ModelPublisher(channel, 4096, Optional.of(store), 8_000);
        final KafkaProducer<byte[], byte[]> producer = producer(channel);
        final byte[] big = ChannelFixtures.artifact(20_000, 3);
        final ModelVersion sent = publish(publisher, producer, channel, 0, big);
        assertThat(sent.getArtifact().getChunkCount()).isZero();
        assertThat(sent.getArtifact().getUri()).startsWith("file:");

        final ModelChannelReader reader =
                closeLater(new ModelChannelReader(channel, Optional.of(store), WAIT));
        assertThat(reader.fetch(0).bytes()).isEqualTo(big);
    }

    private static Map<String, Boolean> readChunkKeys(final ModelChannel channel) {
        final Map<String, Object> config = new HashMap<>(channel.consumerConfig("it-raw"));
        final Map<String, Boolean> last = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
            final TopicPartition tp = new TopicPartition(channel.chunksTopic(), 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (final ConsumerRecord<String, byte[]> r :
                        consumer.poll(Duration.ofMillis(200))) {
                    last.put(r.key(), r.value() == null);
                }
            }
        }
        return last;
    }
}
