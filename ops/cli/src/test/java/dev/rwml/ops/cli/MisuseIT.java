package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.embedded.ClusterSecurity;
import dev.rwml.worldmodel.hf.HfFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Misuse as users commit it (issue 28), each case its own {@code ./rwml} process: missing,
 * misplaced and malformed files, wrong passwords, untrusted certificates, unreachable hosts, a port
 * in use, bad values and unknown keys, a run that does not exist, an unsupported checkpoint, too
 * little memory for a batch, and Ctrl-C (SIGTERM) during long commands. A failing case must exit
 * non-zero within its bound with exactly one error line on stderr naming the cause and the fix (the
 * key words of the table) and no stack trace; a stopped one must end within its bound; and neither
 * may leave a process behind. The cases that need a cluster share one {@code rwml up --secure}.
 *
 * <p>Not covered: an unreadable file by permissions (the tests may run as root, who reads any file;
 * a directory in place of the file stands in) and a full disk (needs a size-limited mount, which
 * needs root tricks this test does not play).
 */
@Tag("system")
class MisuseIT {

    @RegisterExtension static final RwmlProcesses RWML = new RwmlProcesses("misuse");

    private static final String RUN = "misuse";
    private static final Duration FAILS_WITHIN = Duration.ofSeconds(60);
    private static final Duration SLOW_FAILS_WITHIN = Duration.ofSeconds(100);
    private static final Duration STOPS_WITHIN = Duration.ofSeconds(60);
    private static final String LOG_POINTER = "rwml: library warnings go to";
    private static final String NOWHERE = "http://127.0.0.1:1";

    private static RwmlProcesses.Cluster cluster;
    private static Path secure;
    private static Map<String, String> client;
    private static ServerSocket heldPort;
    private static int closedPort;

    /**
     * One kind of misuse: the command, and either the key words of its error line or, for a long
     * command to stop, when it is ready for the SIGTERM.
     */
    /** The length of the shared predict log when a case that waits on it started. */
    private static final Map<Path, Integer> PREDICT_LOG_BEFORE = new ConcurrentHashMap<>();

    record Misuse(
            String name,
            Function<Path, List<String>> command,
            Duration within,
            Predicate<Path> readyToStop,
            List<String> keywords) {

        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    static void startASecureClusterWithAModelAndHoldAPort() throws Exception {
        cluster = RWML.up("--secure --run " + RUN);
        secure = RWML.data().resolve(ClusterSecurity.DIRECTORY);
        client = load(secure.resolve(ClusterSecurity.CLIENT_PROPERTIES));
        RWML.runToEnd("env-pretrain", "env run --env alfworld --agents 2 --episodes 4 --seed 1");
        RWML.runToEnd("model-init", "model init --run " + RUN + " --size tiny --steps 5");
        heldPort = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
    }

    @AfterAll
    static void releaseThePort() throws IOException {
        if (heldPort != null) {
            heldPort.close();
        }
    }

    static Stream<Misuse> misuses() {
        return Stream.of(
                fails(
                        "missing client config",
                        dir -> status("--client-config", dir.resolve("missing.properties")),
                        "no file",
                        "missing.properties",
                        "check the path"),
                fails(
                        "directory as client config",
                        dir -> status("--client-config", dir),
                        "--client-config",
                        "directory",
                        "name a file"),
                fails(
                        "unknown key in client config",
                        dir ->
                                status(
                                        "--client-config",
                                        write(dir, "client.properties", Map.of("batch.size", "1"))),
                        "batch.size",
                        "no connection settings",
                        "--config FILE"),
                fails(
                        "missing truststore",
                        dir ->
                                status(
                                        "--client-config",
                                        write(
                                                dir,
                                                "client.properties",
                                                Map.of(
                                                        "security.protocol",
                                                        "SSL",
                                                        "ssl.truststore.location",
                                                        dir.resolve("none.p12").toString()))),
                        "no file",
                        "none.p12",
                        "ssl.truststore.location in --client-config"),
                fails(
                        "missing stage config file",
                        dir ->
                                stage(
                                        dir,
                                        "filter",
                                        "--config",
                                        dir.resolve("filter.properties").toString()),
                        "filter config",
                        "no file",
                        "filter.properties"),
                fails(
                        "unknown --set key",
                        dir -> stage(dir, "filter", "--set", "no.such.key=1"),
                        "unknown filter setting",
                        "no.such.key",
                        "--help-config"),
                fails(
                        "bad duration value",
                        dir -> stage(dir, "reward", "--set", "broker.timeout=soon"),
                        "broker.timeout",
                        "ISO-8601",
                        "--set"),
                fails(
                        "bad size value",
                        dir -> stage(dir, "predict", "--set", "model.memory.limit=lots"),
                        "model.memory.limit",
                        "lots",
                        "512m"),
                fails(
                        "not a number for an option",
                        dir -> List.of("env", "run", "--env", "alfworld", "--episodes", "many"),
                        "--episodes",
                        "many",
                        "--help"),
                fails(
                        "unknown option",
                        dir -> List.of("status", "--run", RUN, "--colour"),
                        "unknown option",
                        "--colour",
                        "rwml status --help"),
                fails(
                        "missing required option",
                        dir -> List.of("status"),
                        "--run",
                        "rwml status --help"),
                fails("unknown command", dir -> List.of("frobnicate"), "frobnicate", "rwml --help"),
                fails(
                        "unknown environment",
                        dir ->
                                List.of(
                                        "env",
                                        "run",
                                        "--env",
                                        "chess",
                                        "--data-dir",
                                        RWML.data().toString()),
                        "chess",
                        "alfworld"),
                fails(
                        "no cluster given",
                        dir -> List.of("status", "--run", RUN, "--data-dir", dir.toString()),
                        "no cluster given",
                        "--bootstrap-servers",
                        "rwml up"),
                fails(
                        "unknown host",
                        dir ->
                                List.of(
                                        "status",
                                        "--run",
                                        RUN,
                                        "--bootstrap-servers",
                                        "no-such-host.invalid:9092",
                                        "--schema-registry-url",
                                        NOWHERE,
                                        "--data-dir",
                                        dir.toString()),
                        "unknown host",
                        "--bootstrap-servers"),
                failsSlowly(
                        "nothing listening at the address",
                        dir ->
                                List.of(
                                        "status",
                                        "--run",
                                        RUN,
                                        "--bootstrap-servers",
                                        "127.0.0.1:" + closedPort,
                                        "--schema-registry-url",
                                        NOWHERE,
                                        "--data-dir",
                                        dir.toString()),
                        "127.0.0.1:" + closedPort,
                        "no answer",
                        "rwml up",
                        "--bootstrap-servers"),
                fails(
                        "port in use",
                        dir ->
                                List.of(
                                        "status",
                                        "--run",
                                        RUN,
                                        "--web",
                                        "--port",
                                        String.valueOf(heldPort.getLocalPort()),
                                        "--data-dir",
                                        RWML.data().toString()),
                        "port is in use",
                        "--port"),
                fails(
                        "missing checkpoint",
                        dir -> logits(dir.resolve("no-checkpoint")),
                        "config.json",
                        "no file",
                        "check the path"),
                fails(
                        "unsupported checkpoint architecture",
                        dir ->
                                logits(
                                        checkpoint(
                                                dir,
                                                "{\"architectures\": [\"MambaForCausalLM\"],"
                                                        + " \"model_type\": \"mamba\"}")),
                        "unsupported architecture MambaForCausalLM",
                        "supported are",
                        "convert the checkpoint"),
                fails(
                        "checkpoint config not JSON",
                        dir -> logits(checkpoint(dir, "{not json")),
                        "config.json",
                        "not valid JSON"),
                fails(
                        "wrong SASL password",
                        dir ->
                                secured(
                                        dir,
                                        Map.of(
                                                "sasl.jaas.config",
                                                ClusterSecurity.jaasConfig(
                                                        ClusterSecurity.CLIENT_USER,
                                                        "not-the-password"))),
                        "refused the login of User:rwml",
                        "password in sasl.jaas.config is wrong"),
                fails(
                        "wrong truststore password",
                        dir -> secured(dir, Map.of("ssl.truststore.password", "not-it")),
                        "Failed to create new KafkaAdminClient",
                        "truststore.p12",
                        "password was incorrect",
                        "fix ssl.truststore.password in --client-config"),
                fails(
                        "wrong keystore password",
                        dir ->
                                secured(
                                        dir,
                                        Map.of(
                                                "ssl.keystore.location",
                                                secure.resolve("server.p12").toString(),
                                                "ssl.keystore.password",
                                                "not-it")),
                        "server.p12",
                        "password was incorrect",
                        "fix ssl.keystore.password in --client-config"),
                fails(
                        "untrusted certificate",
                        dir -> secured(dir, jdkTruststore("ssl.")),
                        "TLS handshake",
                        "not trusted by ssl.truststore.location",
                        "truststore.p12"),
                fails(
                        "untrusted registry certificate",
                        dir ->
                                withClientConfig(
                                        dir,
                                        jdkTruststore("schema.registry.ssl."),
                                        "env",
                                        "run",
                                        "--env",
                                        "alfworld",
                                        "--episodes",
                                        "1"),
                        "schema registry",
                        "schema.registry.ssl.truststore.location"),
                failsSlowly(
                        "run that does not exist",
                        dir ->
                                List.of(
                                        "models",
                                        "export",
                                        "--run",
                                        "no-such-run",
                                        "--dir",
                                        dir.toString(),
                                        "--data-dir",
                                        RWML.data().toString()),
                        "no-such-run",
                        "model init"),
                failsSlowly(
                        "too little memory for a batch",
                        dir ->
                                List.of(
                                        "predict",
                                        "--run",
                                        RUN,
                                        "--set",
                                        "model.memory.limit=1k",
                                        "--set",
                                        "state.dir=" + dir.resolve("state"),
                                        "--data-dir",
                                        RWML.data().toString()),
                        "model.memory.limit",
                        "needs about"),
                stops(
                        "Ctrl-C during env run",
                        dir ->
                                List.of(
                                        "env",
                                        "run",
                                        "--env",
                                        "alfworld",
                                        "--agents",
                                        "2",
                                        "--episodes",
                                        "100000",
                                        "--progress-interval",
                                        "PT1S",
                                        "--data-dir",
                                        RWML.data().toString()),
                        dir -> hasOutput("Ctrl-C during env run")),
                stops(
                        "Ctrl-C during predict",
                        dir -> {
                            // Earlier cases wrote to the same log: only what this one adds counts.
                            PREDICT_LOG_BEFORE.put(dir, read(predictLog()).length());
                            return List.of(
                                    "predict",
                                    "--run",
                                    RUN,
                                    "--set",
                                    "state.dir=" + dir.resolve("state"),
                                    "--data-dir",
                                    RWML.data().toString());
                        },
                        dir ->
                                read(predictLog())
                                        .substring(PREDICT_LOG_BEFORE.get(dir))
                                        .contains("loaded version")),
                stops(
                        "Ctrl-C during rwml up",
                        dir -> List.of("up", "--data-dir", dir.resolve("data").toString()),
                        dir -> Files.exists(dir.resolve("data").resolve("cluster.properties"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("misuses")
    void shouldEndWithinItsBoundSayingCauseAndFixAndLeaveNothingRunning(final Misuse misuse)
            throws Exception {
        final Path dir = Files.createDirectories(RWML.work().resolve(slug(misuse.name())));
        final Child child = RWML.launch(slug(misuse.name()), misuse.command().apply(dir));

        if (misuse.readyToStop() != null) {
            await(misuse.name() + " is under way")
                    .atMost(RwmlProcesses.CLUSTER_START)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> RwmlProcesses.running(child) && misuse.readyToStop().test(dir));
            child.process().destroy();
        }
        final RwmlProcesses.Exit exit = RwmlProcesses.awaitExit(child, misuse.within());
        assertThat(exit.ended())
                .as("%s ended within %s%s", misuse.name(), misuse.within(), child.tails())
                .isTrue();

        final String err = read(child.err());
        assertThat(err).as("no stack trace%s", child.tails()).doesNotContain("\tat ");
        final List<String> lines =
                err.lines().filter(l -> !l.isBlank() && !l.startsWith(LOG_POINTER)).toList();
        if (misuse.readyToStop() == null) {
            assertThat(child.process().exitValue()).as("exit code%s", child.tails()).isNotZero();
            assertThat(lines).as("one error line%s", child.tails()).hasSize(1);
            final String line = lines.get(0).toLowerCase(Locale.ROOT);
            assertThat(line).startsWith("rwml");
            for (final String keyword : misuse.keywords()) {
                assertThat(line)
                        .as("the error line names %s%s", keyword, child.tails())
                        .contains(keyword.toLowerCase(Locale.ROOT));
            }
        } else {
            assertThat(lines)
                    .as("no error line after a requested stop%s", child.tails())
                    .noneMatch(l -> l.startsWith("rwml:"));
        }
        assertNothingLeft(child, dir);
    }

    /** The child and everything it started are gone; a stopped {@code rwml up} freed its port. */
    private static void assertNothingLeft(final Child child, final Path dir) throws IOException {
        assertThat(child.process().isAlive()).isFalse();
        assertThat(
                        ProcessHandle.allProcesses()
                                .filter(ProcessHandle::isAlive)
                                .filter(
                                        p ->
                                                p.info()
                                                        .commandLine()
                                                        .orElse("")
                                                        .contains(dir.toString())))
                .as("processes still running for %s", dir)
                .isEmpty();
        final Path upFile = dir.resolve("data").resolve(ClusterOptions.CLUSTER_FILE);
        if (Files.exists(upFile)) {
            final String bootstrap = load(upFile).get(ClusterOptions.BOOTSTRAP_KEY);
            final String[] hostPort = bootstrap.split(",")[0].split(":");
            try (Socket socket = new Socket()) {
                socket.connect(
                        new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 2_000);
                throw new AssertionError("the stopped cluster still listens at " + bootstrap);
            } catch (java.net.ConnectException expected) {
                // Refused: nothing listens any more.
            }
        }
    }

    // ---- building the cases ----

    private static Misuse fails(
            final String name, final Function<Path, List<String>> command, final String... words) {
        return new Misuse(name, command, FAILS_WITHIN, null, List.of(words));
    }

    private static Misuse failsSlowly(
            final String name, final Function<Path, List<String>> command, final String... words) {
        return new Misuse(name, command, SLOW_FAILS_WITHIN, null, List.of(words));
    }

    private static Misuse stops(
            final String name,
            final Function<Path, List<String>> command,
            final Predicate<Path> ready) {
        return new Misuse(name, command, STOPS_WITHIN, ready, List.of());
    }

    /** {@code status} of the run against no cluster, with {@code more}. */
    private static List<String> status(final Object... more) {
        final List<String> args =
                new ArrayList<>(
                        List.of(
                                "status",
                                "--run",
                                RUN,
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--schema-registry-url",
                                NOWHERE));
        for (final Object m : more) {
            args.add(m.toString());
        }
        return args;
    }

    /** A stage command of the run against no cluster, its state in {@code dir}. */
    private static List<String> stage(final Path dir, final String stage, final String... more) {
        final List<String> args =
                new ArrayList<>(
                        List.of(
                                stage,
                                "--run",
                                RUN,
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--schema-registry-url",
                                NOWHERE,
                                "--data-dir",
                                dir.toString()));
        args.addAll(List.of(more));
        return args;
    }

    /** {@code status} of the secure cluster with its client settings changed by {@code changes}. */
    private static List<String> secured(final Path dir, final Map<String, String> changes) {
        return withClientConfig(dir, changes, "status", "--run", RUN);
    }

    private static List<String> withClientConfig(
            final Path dir, final Map<String, String> changes, final String... command) {
        final Map<String, String> settings = new LinkedHashMap<>(client);
        settings.putAll(changes);
        final List<String> args = new ArrayList<>(List.of(command));
        args.addAll(
                List.of(
                        "--client-config",
                        write(dir, "client.properties", settings).toString(),
                        "--data-dir",
                        RWML.data().toString()));
        return args;
    }

    /** Truststore settings under {@code prefix} naming the JDK's public CAs only. */
    private static Map<String, String> jdkTruststore(final String prefix) {
        return Map.of(
                prefix + "truststore.location",
                Path.of(System.getProperty("java.home"), "lib", "security", "cacerts").toString(),
                prefix + "truststore.password",
                "changeit",
                prefix + "truststore.type",
                "JKS");
    }

    private static List<String> logits(final Path checkpoint) {
        return List.of("model", "logits", "--hf", checkpoint.toString(), "--ids", "1,2");
    }

    /** A copy of the tiny Qwen2 fixture whose {@code config.json} is {@code config}. */
    private static Path checkpoint(final Path dir, final String config) {
        try {
            final Path copy = Files.createDirectories(dir.resolve("checkpoint"));
            try (Stream<Path> files = Files.list(HfFixtures.checkpoint("qwen2-tiny"))) {
                for (final Path f : (Iterable<Path>) files::iterator) {
                    if (Files.isRegularFile(f)) {
                        Files.copy(f, copy.resolve(f.getFileName().toString()));
                    }
                }
            }
            Files.writeString(copy.resolve("config.json"), config);
            return copy;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path write(final Path dir, final String name, final Map<String, String> values) {
        final Properties props = new Properties();
        props.putAll(values);
        final Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            props.store(out, null);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return file;
    }

    /** The log every {@code predict} case of the shared data directory writes to. */
    private static Path predictLog() {
        return RWML.data().resolve("logs/predict.log");
    }

    private static boolean hasOutput(final String name) {
        final Path out = RWML.work().resolve(slug(name) + ".out");
        return Files.exists(out) && !read(out).isBlank();
    }

    private static Map<String, String> load(final Path file) throws IOException {
        final Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        }
        final Map<String, String> map = new LinkedHashMap<>();
        props.stringPropertyNames().forEach(k -> map.put(k, props.getProperty(k)));
        return map;
    }

    private static String read(final Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String slug(final String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
    }
}
