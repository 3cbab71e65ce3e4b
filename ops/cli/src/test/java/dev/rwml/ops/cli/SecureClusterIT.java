package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.assertExited;
import static dev.rwml.ops.cli.RwmlProcesses.awaitExit;
import static dev.rwml.ops.cli.RwmlProcesses.partitions;
import static dev.rwml.ops.cli.RwmlProcesses.running;
import static dev.rwml.ops.cli.RwmlProcesses.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.ModelVersion;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.cli.RwmlProcesses.Exit;
import dev.rwml.ops.embedded.ClusterSecurity;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.registry.CompatibilityLevel;
import dev.rwml.schemas.registry.RegistryTlsException;
import dev.rwml.schemas.registry.SchemaRegistryClient;
import dev.rwml.schemas.registry.SchemaRegistryClients;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ./rwml up --secure} as a user runs it: the pipeline (env producer, model init and the
 * three stages, each its own process) trains on the SASL_SSL listener and the HTTPS registry with
 * only the client settings file {@code up} wrote, which every command finds by itself; and a wrong
 * password, a truststore without the cluster's CA and a principal without Read on {@code
 * rwml.transitions} each stop their command within seconds with a message that says which, for
 * whom, and what to grant or fix.
 *
 * <p>The cluster, the refused commands and the pipeline run once, before the tests; each behaviour
 * is then checked by a test of its own. Every child writes {@code <name>.out} and {@code
 * <name>.err} under {@code target/secure-cluster/}, which stays after the test for diagnosis.
 */
@Tag("system")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureClusterIT {

    private static final String RUN = "secure";

    /** The refused commands run as another run, so they touch none of the pipeline's groups. */
    private static final String PROBE_RUN = "probe";

    private static final String INTRUDER = "intruder";
    private static final String PREDICTION_GROUP = StageName.PREDICTION.groupId(RUN);
    private static final Duration STAGE_START = Duration.ofMinutes(2);
    private static final Duration PIPELINE = Duration.ofMinutes(3);

    /** Fail fast: a JVM start, the settings, one refused connection, with room for a busy CI. */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(60);

    @RegisterExtension static final RwmlProcesses RWML = new RwmlProcesses("secure-cluster");

    // What the scenario saw, for the tests.
    private RwmlProcesses.Cluster cluster;
    private Path secure;
    private Map<String, String> client;
    private Map<String, String> untrusted;
    private Throwable plainHttp;
    private Exit wrongPassword;
    private Exit untrustedCertificate;
    private Exit withoutRead;
    private Throwable untrustedRegistry;
    private Duration untrustedRegistryTook;
    private CompatibilityLevel trustedRegistry;
    private long produced;
    private long predicted;
    private List<Exit> stopped;

    /**
     * Runs {@code up --secure}, the three refused commands, and then the pipeline on the secured
     * cluster until a version after 0 is published, and stops its stages.
     */
    @BeforeAll
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void runUpSecureTheRefusedCommandsAndTheSecuredPipeline() throws Exception {
        final long started = System.nanoTime();
        cluster = RWML.up("--secure --run " + RUN);
        secure = RWML.data().resolve(ClusterSecurity.DIRECTORY);
        client = load(secure.resolve(ClusterSecurity.CLIENT_PROPERTIES));
        final Map<String, String> admin = load(secure.resolve(ClusterSecurity.ADMIN_PROPERTIES));
        final long upSeconds = seconds(started);
        final URI plain =
                URI.create(cluster.registry().replace("https://", "http://") + "/subjects");
        plainHttp =
                catchThrowable(
                        () ->
                                HttpClient.newHttpClient()
                                        .send(
                                                HttpRequest.newBuilder(plain)
                                                        .timeout(Duration.ofSeconds(10))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString()));

        final long refusalsStarted = System.nanoTime();
        runRefusedCommands(admin);
        final long refusalsSeconds = seconds(refusalsStarted);

        final long pipelineStarted = System.nanoTime();
        trainSecured();
        System.out.printf(
                "SecureClusterIT: up --secure %d s, three refusals %d s, secured pipeline %d s,"
                        + " total %d s%n",
                upSeconds, refusalsSeconds, seconds(pipelineStarted), seconds(started));
    }

    @Test
    void shouldPrintWhereItWroteTheClientSettings() throws Exception {
        assertThat(Files.readString(cluster.up().out()))
                .contains(UpCommand.CLIENT_CONFIG_PREFIX + secure.resolve("client.properties"));
    }

    @Test
    void shouldWriteClientSettingsForScramOverTlsWithTheClustersTruststore() {
        assertThat(client)
                .containsEntry("bootstrap.servers", cluster.bootstrap())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("schema.registry.url", cluster.registry())
                .containsEntry(
                        "ssl.truststore.location", secure.resolve("truststore.p12").toString())
                .containsEntry(
                        "schema.registry.ssl.truststore.location",
                        secure.resolve("truststore.p12").toString());
        assertThat(client.get("sasl.jaas.config")).contains("username=\"rwml\"");
    }

    @Test
    void shouldKeepTheSecretFilesReadableByTheirOwnerOnly() throws Exception {
        for (final String secret :
                List.of("client.properties", "admin.properties", "secrets.properties", "ca.p12")) {
            assertThat(
                            PosixFilePermissions.toString(
                                    Files.getPosixFilePermissions(secure.resolve(secret))))
                    .as("permissions of %s", secret)
                    .isEqualTo("rw-------");
        }
    }

    @Test
    void shouldServeTheRegistryOverHttpsOnly() {
        assertThat(cluster.registry()).startsWith("https://127.0.0.1:");
        assertThat(plainHttp)
                .as("plain HTTP to the registry's port")
                .isInstanceOf(IOException.class);
    }

    @Test
    void shouldStopACommandWithAWrongPasswordWithinSecondsSayingSo() throws Exception {
        assertExited(wrongPassword, StageRunner.EXIT_FAILED);
        final Child badLogin = wrongPassword.child();
        assertThat(Files.readString(badLogin.err()))
                .as("the wrong password's message%s", badLogin.tails())
                .contains("refused the login of User:rwml")
                .contains("SCRAM-SHA-512")
                .contains("password in sasl.jaas.config is wrong");
    }

    @Test
    void shouldStopACommandThatDoesNotTrustTheClusterWithinSecondsSayingSo() throws Exception {
        assertExited(untrustedCertificate, StageRunner.EXIT_FAILED);
        final Child badTls = untrustedCertificate.child();
        assertThat(Files.readString(badTls.err()))
                .as("the untrusted certificate's message%s", badTls.tails())
                .contains("TLS handshake with Kafka at " + cluster.bootstrap() + " failed")
                .contains(
                        "not trusted by ssl.truststore.location="
                                + untrusted.get("ssl.truststore.location"));
    }

    @Test
    void shouldStopACommandWithoutReadOnTransitionsWithinSecondsSayingWhatToGrant()
            throws Exception {
        assertExited(withoutRead, StageRunner.EXIT_FAILED);
        final Child noRead = withoutRead.child();
        assertThat(Files.readString(noRead.err()))
                .as("the missing ACL's message%s", noRead.tails())
                .contains("User:" + INTRUDER + " is not authorized on topic rwml.transitions")
                .contains(
                        "kafka-acls.sh --bootstrap-server "
                                + cluster.bootstrap()
                                + " --command-config admin.properties --add --allow-principal"
                                + " User:"
                                + INTRUDER
                                + " --operation Read --topic rwml.transitions");
    }

    @Test
    void shouldRefuseAnUntrustedRegistryCertificateWithoutRetrying() {
        assertThat(untrustedRegistry)
                .isInstanceOf(RegistryTlsException.class)
                .hasMessageContaining("TLS handshake with the schema registry")
                .hasMessageContaining("schema.registry.ssl.truststore.location");
        assertThat(untrustedRegistryTook)
                .as("no retries for an untrusted certificate")
                .isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void shouldAnswerARegistryClientThatTrustsTheClustersCertificate() {
        assertThat(trustedRegistry).isNotNull();
    }

    @Test
    void shouldPredictEachTransitionOnceOnTheSecuredCluster() {
        assertThat(predicted)
                .as("one prediction group per transition after the slice")
                .isEqualTo(produced);
    }

    @Test
    void shouldStopEachSecuredStageWithExitZeroOnSigterm() {
        for (final Exit stage : stopped) {
            assertExited(stage, StageRunner.EXIT_STOPPED);
        }
    }

    /**
     * A wrong password, a truststore of public CAs only (the JDK's), and a user with every ACL of
     * the pipeline but Read on {@code rwml.transitions}: each command should exit 1 within seconds,
     * saying which; the registry client should refuse the untrusted certificate without retrying.
     * Waits for the three to end.
     */
    private void runRefusedCommands(final Map<String, String> admin) throws Exception {
        createIntruderAndProbeTopics(admin);
        final Map<String, String> wrongPasswordSettings = new LinkedHashMap<>(client);
        wrongPasswordSettings.put(
                "sasl.jaas.config",
                ClusterSecurity.jaasConfig(ClusterSecurity.CLIENT_USER, "not-the-password"));
        untrusted = new LinkedHashMap<>(client);
        final String jdkCas =
                Path.of(System.getProperty("java.home"), "lib", "security", "cacerts").toString();
        for (final String prefix : List.of("ssl.", "schema.registry.ssl.")) {
            untrusted.put(prefix + "truststore.location", jdkCas);
            untrusted.put(prefix + "truststore.password", "changeit");
            untrusted.put(prefix + "truststore.type", "JKS");
        }
        final Map<String, String> intruder = new LinkedHashMap<>(client);
        intruder.put("sasl.jaas.config", ClusterSecurity.jaasConfig(INTRUDER, INTRUDER + "-pw"));

        final Child badLogin =
                startRefused(
                        "reward-wrong-password",
                        "reward",
                        write("wrong-password", wrongPasswordSettings));
        final Child badTls =
                startRefused("train-untrusted", "train", write("untrusted", untrusted));
        final Child noRead =
                startRefused("reward-without-read", "reward", write(INTRUDER, intruder));

        askTheRegistryWithAndWithoutTheClustersCertificate();
        wrongPassword = awaitExit(badLogin, REFUSED_WITHIN);
        untrustedCertificate = awaitExit(badTls, REFUSED_WITHIN);
        withoutRead = awaitExit(noRead, REFUSED_WITHIN);
    }

    private static Child startRefused(
            final String name, final String stage, final Path clientConfig) throws IOException {
        final List<String> more =
                new ArrayList<>(List.of("--client-config", clientConfig.toString()));
        if (stage.equals("reward")) {
            more.addAll(List.of("--set", "state.dir=" + RWML.work().resolve(name + "-state")));
        }
        return RWML.start(name, stage + " --run " + PROBE_RUN, more.toArray(String[]::new));
    }

    /** The registry client, with the JDK's CAs only, then with the cluster's truststore. */
    private void askTheRegistryWithAndWithoutTheClustersCertificate() {
        final long started = System.nanoTime();
        final SchemaRegistryClient refused =
                SchemaRegistryClients.create(Connection.from(untrusted).registryConfig());
        untrustedRegistry = catchThrowable(() -> refused.compatibility("secure-it-probe"));
        untrustedRegistryTook = Duration.ofNanos(System.nanoTime() - started);
        refused.close();
        final SchemaRegistryClient trusted =
                SchemaRegistryClients.create(Connection.from(client).registryConfig());
        trustedRegistry = trusted.compatibility("secure-it-probe");
        trusted.close();
    }

    /**
     * User {@value #INTRUDER}: Describe, DescribeConfigs and Write on every {@code rwml.} topic,
     * Read only on the probe run's topics, and the groups, transactional ids and internal topics of
     * the pipeline; so it lacks exactly Read on {@code rwml.transitions}.
     */
    private static void createIntruderAndProbeTopics(final Map<String, String> adminSettings)
            throws Exception {
        final Connection connection = Connection.from(adminSettings);
        try (Admin admin = connection.admin()) {
            new TopicAdmin(admin, TopicCatalog.defaults())
                    .ensure(TopicCatalog.defaults().forRun(PROBE_RUN));
            admin.alterUserScramCredentials(
                            List.of(
                                    new UserScramCredentialUpsertion(
                                            INTRUDER,
                                            new ScramCredentialInfo(
                                                    ScramMechanism.SCRAM_SHA_512, 8192),
                                            INTRUDER + "-pw")))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            final List<AclBinding> acls = new ArrayList<>();
            for (final AclOperation op :
                    List.of(
                            AclOperation.DESCRIBE,
                            AclOperation.DESCRIBE_CONFIGS,
                            AclOperation.WRITE)) {
                acls.add(allow(ResourceType.TOPIC, "rwml.", op));
            }
            acls.add(allow(ResourceType.TOPIC, "rwml." + PROBE_RUN + ".", AclOperation.READ));
            acls.add(allow(ResourceType.TOPIC, "rwml-", AclOperation.ALL));
            acls.add(allow(ResourceType.GROUP, "rwml", AclOperation.ALL));
            acls.add(allow(ResourceType.TRANSACTIONAL_ID, "rwml", AclOperation.ALL));
            acls.addAll(ClusterSecurity.clusterAcls("User:" + INTRUDER));
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static AclBinding allow(
            final ResourceType type, final String prefix, final AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, prefix, PatternType.PREFIXED),
                new AccessControlEntry("User:" + INTRUDER, "*", op, AclPermissionType.ALLOW));
    }

    /**
     * The by-hand pipeline with no cluster option at all: every command finds the running secure
     * cluster and its client settings through the data directory. Runs until every transition is
     * rewarded and a version after 0 is published, then stops the stages with SIGTERM.
     */
    private void trainSecured() throws Exception {
        RWML.initTinyModel(RUN, 10);
        final Map<TopicPartition, Long> slice = endOffsets(client, TopicCatalog.TRANSITIONS);

        final Child predict =
                RWML.start(
                        "predict",
                        "predict --run "
                                + RUN
                                + " --set group.size=4"
                                + " --set sampling.max.new.tokens=32 --set batch.size=4",
                        "--set",
                        "state.dir=" + RWML.work().resolve("prediction-state"));
        final Child reward =
                RWML.start(
                        "reward",
                        "reward --run " + RUN + " --set reward.spec=TEXT=cosine:0.6",
                        "--set",
                        "state.dir=" + RWML.work().resolve("reward-state"));
        final Child train =
                RWML.start(
                        "train",
                        "train --run "
                                + RUN
                                + " --set groups.per.step=4 --set publish.every.steps=1"
                                + " --set learning.rate=3e-3");
        final List<Child> stages = List.of(predict, reward, train);

        try (Admin admin = Connection.from(client).admin()) {
            await("the prediction stage commits its start at the end of the pretraining slice")
                    .atMost(STAGE_START)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> running(stages) && committed(admin).equals(slice));
        }
        RWML.runToEnd(
                "env-rwml",
                "env run --env alfworld --agents 2 --episodes 12 --seed 2 --policy epsilon");
        produced = sum(endOffsets(client, TopicCatalog.TRANSITIONS)) - sum(slice);
        assertThat(produced).as("transitions after the slice").isPositive();

        final RunTopics topics = TopicCatalog.defaults().run(RUN);
        await("every transition predicted and rewarded, and a version after 0 published")
                .atMost(PIPELINE)
                .pollInterval(Duration.ofSeconds(3))
                .untilAsserted(
                        () -> {
                            running(stages);
                            assertThat(records(client, topics.rewards().name()))
                                    .as("rewarded groups on %s", topics.rewards().name())
                                    .isEqualTo(produced);
                            assertThat(latestVersion(client, topics))
                                    .as("latest version on %s", topics.models().name())
                                    .isPositive();
                        });
        predicted = records(client, topics.predictions().name());
        stages.forEach(stage -> stage.process().destroy());
        final List<Exit> exits = new ArrayList<>();
        for (final Child stage : stages) {
            exits.add(awaitExit(stage, Duration.ofSeconds(60)));
        }
        stopped = exits;
    }

    // ---- Kafka, read as user rwml ----

    private static KafkaConsumer<byte[], byte[]> consumer(final Map<String, String> client) {
        final Map<String, Object> extra = new HashMap<>();
        extra.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        extra.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(
                Connection.from(client).kafkaConfig(extra),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    private static long records(final Map<String, String> client, final String topic) {
        return values(client, topic, new ByteArrayDeserializer()).size();
    }

    private static <V> List<V> values(
            final Map<String, String> client, final String topic, final Deserializer<V> values) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(client)) {
            return RwmlProcesses.values(TestClients.readToEnd(consumer, topic), values);
        }
    }

    private static Map<TopicPartition, Long> endOffsets(
            final Map<String, String> client, final String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(client)) {
            return new HashMap<>(consumer.endOffsets(partitions(consumer, topic)));
        }
    }

    private static long latestVersion(final Map<String, String> client, final RunTopics topics) {
        final Deserializer<ModelVersion> manifests =
                topics.models().valueSerde(Connection.from(client).registryConfig()).deserializer();
        return values(client, topics.models().name(), manifests).stream()
                .mapToLong(ModelVersion::getVersion)
                .max()
                .orElse(-1);
    }

    private static Map<TopicPartition, Long> committed(final Admin admin) throws Exception {
        return admin
                .listConsumerGroupOffsets(PREDICTION_GROUP)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .entrySet()
                .stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    // ---- files ----

    private static Path write(final String name, final Map<String, String> settings)
            throws IOException {
        final Path file = RWML.work().resolve(name + ".properties");
        final StringBuilder text = new StringBuilder();
        settings.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        Files.writeString(file, text);
        return file;
    }

    private static Map<String, String> load(final Path file) throws IOException {
        final Properties p = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            p.load(reader);
        }
        final Map<String, String> settings = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> settings.put(k, p.getProperty(k)));
        return settings;
    }

    private static long seconds(final long sinceNanos) {
        return Duration.ofNanos(System.nanoTime() - sinceNanos).toSeconds();
    }
}
