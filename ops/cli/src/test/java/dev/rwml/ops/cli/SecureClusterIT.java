package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.assertExits;
import static dev.rwml.ops.cli.RwmlProcesses.partitions;
import static dev.rwml.ops.cli.RwmlProcesses.running;
import static dev.rwml.ops.cli.RwmlProcesses.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.ModelVersion;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.embedded.ClusterSecurity;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.StageName;
import dev.rwml.runtime.lifecycle.StageRunner;
import dev.rwml.runtime.settings.Connection;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
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
 * <p>Every child writes {@code <name>.out} and {@code <name>.err} under {@code
 * target/secure-cluster/}, which stays after the test for diagnosis.
 */
@Tag("system")
@Timeout(value = 6, unit = TimeUnit.MINUTES)
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

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("secure-cluster");

    @Test
    void shouldTrainSecuredAndStopFastOnAWrongPasswordAnUntrustedCertificateOrAMissingAcl()
            throws Exception {
        final long started = System.nanoTime();
        final RwmlProcesses.Cluster cluster = rwml.up("--secure --run " + RUN);
        final Path secure = rwml.data().resolve(ClusterSecurity.DIRECTORY);
        final Map<String, String> client = load(secure.resolve(ClusterSecurity.CLIENT_PROPERTIES));
        final Map<String, String> admin = load(secure.resolve(ClusterSecurity.ADMIN_PROPERTIES));
        final long upSeconds = seconds(started);
        assertWhatUpWrote(cluster, secure, client);

        final long refusalsStarted = System.nanoTime();
        assertRefusals(cluster, client, admin);
        final long refusalsSeconds = seconds(refusalsStarted);

        final long pipelineStarted = System.nanoTime();
        trainSecured(client);
        System.out.printf(
                "SecureClusterIT: up --secure %d s, three refusals %d s, secured pipeline %d s,"
                        + " total %d s%n",
                upSeconds, refusalsSeconds, seconds(pipelineStarted), seconds(started));
    }

    /** The client settings, the stores' permissions, and a registry that speaks HTTPS only. */
    private void assertWhatUpWrote(
            final RwmlProcesses.Cluster cluster,
            final Path secure,
            final Map<String, String> client)
            throws Exception {
        assertThat(Files.readString(cluster.up().out()))
                .contains(UpCommand.CLIENT_CONFIG_PREFIX + secure.resolve("client.properties"));
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
        assertThat(cluster.registry()).startsWith("https://127.0.0.1:");
        for (final String secret :
                List.of("client.properties", "admin.properties", "secrets.properties", "ca.p12")) {
            assertThat(
                            PosixFilePermissions.toString(
                                    Files.getPosixFilePermissions(secure.resolve(secret))))
                    .as("permissions of %s", secret)
                    .isEqualTo("rw-------");
        }
        final URI plain =
                URI.create(cluster.registry().replace("https://", "http://") + "/subjects");
        assertThatThrownBy(
                        () ->
                                HttpClient.newHttpClient()
                                        .send(
                                                HttpRequest.newBuilder(plain)
                                                        .timeout(Duration.ofSeconds(10))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString()))
                .as("plain HTTP to the registry's port")
                .isInstanceOf(IOException.class);
    }

    /**
     * A wrong password, a truststore of public CAs only (the JDK's), and a user with every ACL of
     * the pipeline but Read on {@code rwml.transitions}: each command exits 1 within seconds,
     * saying which; the registry client refuses the untrusted certificate without retrying.
     */
    private void assertRefusals(
            final RwmlProcesses.Cluster cluster,
            final Map<String, String> client,
            final Map<String, String> admin)
            throws Exception {
        createIntruderAndProbeTopics(admin);
        final Map<String, String> wrongPassword = new LinkedHashMap<>(client);
        wrongPassword.put(
                "sasl.jaas.config",
                ClusterSecurity.jaasConfig(ClusterSecurity.CLIENT_USER, "not-the-password"));
        final Map<String, String> untrusted = new LinkedHashMap<>(client);
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
                        "reward-wrong-password", "reward", write("wrong-password", wrongPassword));
        final Child badTls =
                startRefused("train-untrusted", "train", write("untrusted", untrusted));
        final Child noRead =
                startRefused("reward-without-read", "reward", write(INTRUDER, intruder));

        assertRegistryRefusesUntrustedCertificateAtOnce(untrusted, client);
        for (final Child refused : List.of(badLogin, badTls, noRead)) {
            assertExits(refused, REFUSED_WITHIN, StageRunner.EXIT_FAILED);
        }
        assertThat(Files.readString(badLogin.err()))
                .as("the wrong password's message%s", badLogin.tails())
                .contains("refused the login of User:rwml")
                .contains("SCRAM-SHA-512")
                .contains("password in sasl.jaas.config is wrong");
        assertThat(Files.readString(badTls.err()))
                .as("the untrusted certificate's message%s", badTls.tails())
                .contains("TLS handshake with Kafka at " + cluster.bootstrap() + " failed")
                .contains(
                        "not trusted by ssl.truststore.location="
                                + untrusted.get("ssl.truststore.location"));
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

    private Child startRefused(final String name, final String stage, final Path clientConfig)
            throws IOException {
        final List<String> more =
                new ArrayList<>(List.of("--client-config", clientConfig.toString()));
        if (stage.equals("reward")) {
            more.addAll(List.of("--set", "state.dir=" + rwml.work().resolve(name + "-state")));
        }
        return rwml.start(name, stage + " --run " + PROBE_RUN, more.toArray(String[]::new));
    }

    private static void assertRegistryRefusesUntrustedCertificateAtOnce(
            final Map<String, String> untrusted, final Map<String, String> client) {
        final long started = System.nanoTime();
        final SchemaRegistryClient refused =
                SchemaRegistryClients.create(Connection.from(untrusted).registryConfig());
        assertThatThrownBy(() -> refused.compatibility("secure-it-probe"))
                .isInstanceOf(RegistryTlsException.class)
                .hasMessageContaining("TLS handshake with the schema registry")
                .hasMessageContaining("schema.registry.ssl.truststore.location");
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("no retries for an untrusted certificate")
                .isLessThan(Duration.ofSeconds(10));
        refused.close();
        // The cluster's own truststore is trusted: the same call gets an answer.
        final SchemaRegistryClient trusted =
                SchemaRegistryClients.create(Connection.from(client).registryConfig());
        assertThat(trusted.compatibility("secure-it-probe")).isNotNull();
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
     * cluster and its client settings through the data directory.
     */
    private void trainSecured(final Map<String, String> client) throws Exception {
        rwml.initTinyModel(RUN, 10);
        final Map<TopicPartition, Long> slice = endOffsets(client, TopicCatalog.TRANSITIONS);

        final Child predict =
                rwml.start(
                        "predict",
                        "predict --run "
                                + RUN
                                + " --set group.size=4"
                                + " --set sampling.max.new.tokens=32 --set batch.size=4",
                        "--set",
                        "state.dir=" + rwml.work().resolve("prediction-state"));
        final Child reward =
                rwml.start(
                        "reward",
                        "reward --run " + RUN + " --set reward.spec=TEXT=cosine:0.6",
                        "--set",
                        "state.dir=" + rwml.work().resolve("reward-state"));
        final Child train =
                rwml.start(
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
        rwml.runToEnd(
                "env-rwml",
                "env run --env alfworld --agents 2 --episodes 12 --seed 2 --policy epsilon");
        final long produced = sum(endOffsets(client, TopicCatalog.TRANSITIONS)) - sum(slice);
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
        assertThat(records(client, topics.predictions().name()))
                .as("one prediction group per transition after the slice")
                .isEqualTo(produced);
        stages.forEach(stage -> stage.process().destroy());
        for (final Child stage : stages) {
            assertExits(stage, Duration.ofSeconds(60), StageRunner.EXIT_STOPPED);
        }
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

    private Path write(final String name, final Map<String, String> settings) throws IOException {
        final Path file = rwml.work().resolve(name + ".properties");
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
