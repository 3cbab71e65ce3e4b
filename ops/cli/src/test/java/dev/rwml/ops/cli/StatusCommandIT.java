package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.RewardedGroup;
import dev.rwml.ops.cli.status.StatusWebServer;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.pipeline.watch.RunObserver;
import dev.rwml.pipeline.watch.StatusCollector;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.awt.image.BufferedImage;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rwml status} against the embedded cluster: lag that the test creates, versions and pass
 * rates the test publishes, and the live page rendered by headless Chromium.
 */
class StatusCommandIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static final String RUN = "status-it-" + Long.toString(System.nanoTime(), 36);
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private static final Path CHROMIUM =
            Path.of(System.getProperty("rwml.chromium", "/usr/bin/chromium"));

    @TempDir Path tmp;

    @BeforeAll
    static void publishVersionsAndRewards() {
        RunFixtures.ensureRunTopics(KAFKA.bootstrapServers(), RUN);
        final RunTopics topics = TopicCatalog.defaults().run(RUN);
        final Map<String, ModelVersion> versions = new LinkedHashMap<>();
        final double[] passRates = {0, 0.30, 0.42, 0.55, 0.61};
        for (int v = 0; v < passRates.length; v++) {
            versions.put(
                    Integer.toString(v),
                    RunFixtures.manifest(RUN, v, T0.plusSeconds(40L * v), 20L * v, passRates[v]));
        }
        RunFixtures.send(
                KAFKA.bootstrapServers(),
                KAFKA.schemaRegistryUrl(),
                ModelVersion.class,
                topics.models().name(),
                versions);
        final Map<String, RewardedGroup> groups = new LinkedHashMap<>();
        // Version 1 generated four groups with pass rates 0.25, 0.5, 0.5, 0.75: mean 0.5; the
        // first 1.5 s after it was published (T0 + 40 s), the others a second apart.
        final double[] v1 = {0.25, 0.5, 0.5, 0.75};
        for (int i = 0; i < v1.length; i++) {
            final RewardedGroup g = RunFixtures.rewarded(RUN, "alfworld/e1/" + i, 1, v1[i]);
            g.setGeneratedAt(T0.plusMillis(41_500 + 1000L * (v1.length - 1 - i)));
            groups.put("alfworld/e1/" + i, g);
        }
        groups.put("alfworld/e2/0", RunFixtures.rewarded(RUN, "alfworld/e2/0", 2, 0.625));
        RunFixtures.send(
                KAFKA.bootstrapServers(),
                KAFKA.schemaRegistryUrl(),
                RewardedGroup.class,
                topics.rewards().name(),
                groups);
    }

    @Test
    void shouldReportLagOfTransitionsProducedWhileNoStageRuns() throws Exception {
        final String predictionGroup = StageName.PREDICTION.groupId(RUN);
        // The prediction stage had read everything so far; then K transitions arrive.
        commitAtEnd(predictionGroup, TopicCatalog.TRANSITIONS);
        final int k = 37;
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (int i = 0; i < k; i++) {
                producer.send(
                        new ProducerRecord<>(
                                TopicCatalog.TRANSITIONS, "status-it/e/" + i, "transition " + i));
            }
            producer.flush();
        }

        final CliRunner.Result json = status("--json", "--sample-seconds", "0");
        assertThat(json.code()).as(json.err()).isZero();
        final JsonNode prediction = new ObjectMapper().readTree(json.out()).get("stages").get(0);
        assertThat(prediction.get("stage").asText()).isEqualTo("prediction");
        assertThat(prediction.get("groupId").asText()).isEqualTo("rwml-" + RUN + "-prediction");
        assertThat(prediction.get("lagByTopic").get(TopicCatalog.TRANSITIONS).asLong())
                .isEqualTo(k);
        assertThat(prediction.get("started").asBoolean()).isTrue();

        final CliRunner.Result text = status("--sample-seconds", "0");
        assertThat(text.code()).as(text.err()).isZero();
        assertThat(text.out())
                .containsPattern(
                        "prediction\\s+rwml-" + RUN + "-prediction\\s+" + k + "\\s+consuming");
    }

    @Test
    void shouldNotCountTheRecordsOfAnOpenTransactionAsLag() throws Exception {
        final String predictions = TopicCatalog.defaults().run(RUN).predictions().name();
        final Map<String, Object> transactional = new HashMap<>();
        transactional.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        transactional.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "status-it-open-" + RUN);
        try (RunObserver observer = new RunObserver(RUN, connection());
                KafkaProducer<String, String> producer =
                        new KafkaProducer<>(
                                transactional, new StringSerializer(), new StringSerializer())) {
            final long before = rewardLag(observer.observe(), predictions);
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(predictions, "status-it/open/" + i, "group"));
            }
            producer.flush();

            // The reward stage reads read_committed: it cannot read these yet, so it is not behind.
            assertThat(rewardLag(observer.observe(), predictions)).isEqualTo(before);
            producer.abortTransaction();
        }
    }

    private static long rewardLag(final RunObserver.Observation o, final String topic) {
        return o.stages().get(1).lagByTopic().get(topic);
    }

    @Test
    void shouldShowPublishedVersionsWithTrainedAndGeneratedPassRates() throws Exception {
        final CliRunner.Result json = status("--json", "--sample-seconds", "0");

        assertThat(json.code()).as(json.err()).isZero();
        final JsonNode versions = new ObjectMapper().readTree(json.out()).get("versions");
        assertThat(versions.findValues("version"))
                .extracting(JsonNode::asLong)
                .containsExactly(0L, 1L, 2L, 3L, 4L);
        final JsonNode v1 = versions.get(1);
        assertThat(v1.get("metrics").get("passRate").asDouble()).isEqualTo(0.30);
        assertThat(v1.get("rewardedGroups").asLong()).isEqualTo(4);
        assertThat(v1.get("generatedPassRate").asDouble()).isEqualTo(0.5);
        // 20 groups trained in the 40 s between version 0 and version 1.
        assertThat(v1.get("trainedGroupsPerSecond").asDouble()).isEqualTo(0.5);
        assertThat(versions.get(0).get("trainedGroupsPerSecond").isNull()).isTrue();
        assertThat(versions.get(3).get("generatedPassRate").isNull()).isTrue();
        assertThat(v1.get("servedAfterSeconds").asDouble()).isEqualTo(1.5);
        assertThat(versions.get(3).get("servedAfterSeconds").isNull()).isTrue();
    }

    @Test
    void shouldServeVersionsOnTheStatusPagesJsonEndpoint() throws Exception {
        try (StatusCollector collector = new StatusCollector(RUN, connection());
                StatusWebServer server = StatusWebServer.start(0, collector::collect)) {
            final HttpResponse<String> api =
                    HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(
                                                    server.uri().resolve(StatusWebServer.API_PATH))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());

            assertThat(api.statusCode()).isEqualTo(200);
            final JsonNode json = new ObjectMapper().readTree(api.body());
            assertThat(json.get("run").asText()).isEqualTo(RUN);
            assertThat(json.get("versions")).hasSize(5);
        }
    }

    @Test
    void shouldRenderTheStatusPageInHeadlessChromium() throws Exception {
        assumeThat(Files.isExecutable(CHROMIUM))
                .as("headless Chromium at %s (apt-get install -y chromium)", CHROMIUM)
                .isTrue();
        final Path png = Path.of("target", "status-page", "status.png").toAbsolutePath();
        Files.createDirectories(png.getParent());
        Files.deleteIfExists(png);
        try (StatusCollector collector = new StatusCollector(RUN, connection());
                StatusWebServer server = StatusWebServer.start(0, collector::collect)) {
            final Process chromium =
                    new ProcessBuilder(
                                    CHROMIUM.toString(),
                                    "--headless",
                                    "--no-sandbox",
                                    "--disable-gpu",
                                    "--disable-quic",
                                    "--no-first-run",
                                    "--disable-background-networking",
                                    "--disable-component-update",
                                    "--disable-sync",
                                    "--user-data-dir=" + tmp.resolve("profile"),
                                    "--screenshot=" + png,
                                    "--window-size=1200,900",
                                    "--virtual-time-budget=5000",
                                    server.uri().toString())
                            .redirectErrorStream(true)
                            .redirectOutput(tmp.resolve("chromium.log").toFile())
                            .start();
            try {
                assertThat(chromium.waitFor(120, TimeUnit.SECONDS))
                        .as("chromium finished; log: %s", tmp.resolve("chromium.log"))
                        .isTrue();
            } finally {
                chromium.destroyForcibly();
            }
        }
        assertThat(png).as(Files.readString(tmp.resolve("chromium.log"))).exists();
        final BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1200);
        // A blank or error page has a handful of colours; charts, text and cards have hundreds.
        assertThat(distinctColours(image)).isGreaterThan(200);
    }

    private static Connection connection() {
        return Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl());
    }

    private static CliRunner.Result status(final String... extra) {
        return RunFixtures.rwmlOnRun(KAFKA, "status", RUN, extra);
    }

    private static void commitAtEnd(final String group, final String topic) throws Exception {
        final Map<TopicPartition, OffsetAndMetadata> ends = new HashMap<>();
        KAFKA.endOffsets(topic).forEach((tp, end) -> ends.put(tp, new OffsetAndMetadata(end)));
        try (Admin admin = KAFKA.admin()) {
            admin.alterConsumerGroupOffsets(group, ends).all().get();
        }
    }

    private static int distinctColours(final BufferedImage image) {
        final Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 2) {
            for (int x = 0; x < image.getWidth(); x += 2) {
                colours.add(image.getRGB(x, y));
            }
        }
        return colours.size();
    }
}
