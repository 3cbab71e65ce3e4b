package dev.rwml.ops.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The security of a cluster started secure: TLS on every listener and on the registry,
 * SCRAM-SHA-512 logins, and ACLs enforced by the KRaft {@code StandardAuthorizer} with nothing
 * allowed that no ACL grants.
 *
 * <p>Its files live under {@code <data-dir>/secure/}, made once and reused on every restart: the CA
 * and server stores of {@link LocalCertificates}, {@code secrets.properties} (the store password
 * and the two users' passwords), and, once the cluster runs, {@code client.properties} (user
 * {@value #CLIENT_USER}: what every {@code rwml} command needs) and {@code admin.properties} (super
 * user {@value #SUPER_USER}: for granting ACLs and adding users). Files holding secrets are
 * readable by their owner only.
 */
public final class ClusterSecurity {

    /** The broker's own principal and the only super user. */
    public static final String SUPER_USER = "admin";

    /** The user every {@code rwml} command logs in as, with the ACLs the pipeline needs. */
    public static final String CLIENT_USER = "rwml";

    /** The SASL mechanism of the client listener. */
    public static final String MECHANISM = "SCRAM-SHA-512";

    /** The directory under the data directory. */
    public static final String DIRECTORY = "secure";

    /** The client settings file of {@value #CLIENT_USER}. */
    public static final String CLIENT_PROPERTIES = "client.properties";

    /** The client settings file of {@value #SUPER_USER}. */
    public static final String ADMIN_PROPERTIES = "admin.properties";

    /**
     * Prefix of every topic, group and transactional id of the pipeline (topics {@code rwml.*},
     * groups, Streams application ids and their internal topics {@code rwml-<run>-<stage>*}).
     */
    public static final String RESOURCE_PREFIX = "rwml";

    private static final String SECRETS = "secrets.properties";
    private static final int SCRAM_ITERATIONS = 8192;

    private final Path dir;
    private final String storePassword;
    private final String adminPassword;
    private final String clientPassword;

    private ClusterSecurity(
            final Path dir,
            final String storePassword,
            final String adminPassword,
            final String clientPassword) {
        this.dir = dir;
        this.storePassword = storePassword;
        this.adminPassword = adminPassword;
        this.clientPassword = clientPassword;
    }

    /** Whether {@code dataDir} holds a secure cluster's files. */
    static boolean existsUnder(final Path dataDir) {
        return Files.isRegularFile(dataDir.resolve(DIRECTORY).resolve(SECRETS));
    }

    /**
     * The security files under {@code dataDir}: read when they exist, else made (certificates by
     * {@code keytool}, random passwords).
     */
    static ClusterSecurity prepare(final Path dataDir) throws IOException {
        final Path dir = dataDir.resolve(DIRECTORY);
        final Path secrets = dir.resolve(SECRETS);
        if (Files.isRegularFile(secrets)) {
            final Properties p = new Properties();
            try (InputStream in = Files.newInputStream(secrets)) {
                p.load(in);
            }
            return new ClusterSecurity(
                    dir,
                    p.getProperty("store.password"),
                    p.getProperty("password." + SUPER_USER),
                    p.getProperty("password." + CLIENT_USER));
        }
        // A half-made directory (a start killed while keytool ran) is made again from scratch.
        Directories.deleteRecursively(dir);
        Files.createDirectories(dir);
        final ClusterSecurity security =
                new ClusterSecurity(dir, randomSecret(), randomSecret(), randomSecret());
        LocalCertificates.create(
                dir,
                "rwml local CA " + Long.toHexString(new SecureRandom().nextLong()),
                security.storePassword);
        for (final String store :
                List.of(LocalCertificates.CA_KEYSTORE, LocalCertificates.SERVER_KEYSTORE)) {
            ownerOnly(dir.resolve(store));
        }
        final Map<String, String> values = new LinkedHashMap<>();
        values.put("store.password", security.storePassword);
        values.put("password." + SUPER_USER, security.adminPassword);
        values.put("password." + CLIENT_USER, security.clientPassword);
        // Written last: its presence says that everything before it is complete.
        writeSecret(secrets, values, "passwords of the secure embedded cluster");
        return security;
    }

    /** The directory holding the files. */
    public Path directory() {
        return dir;
    }

    /** The PKCS12 truststore holding the CA certificate that clients must trust. */
    public Path truststore() {
        return dir.resolve(LocalCertificates.TRUSTSTORE);
    }

    /** The CA certificate (PEM), for tools such as {@code curl --cacert}. */
    public Path caCertificate() {
        return dir.resolve(LocalCertificates.CA_CERTIFICATE);
    }

    /** {@code client.properties}, written by {@link #writeClientFiles}. */
    public Path clientProperties() {
        return dir.resolve(CLIENT_PROPERTIES);
    }

    /** {@code admin.properties}, written by {@link #writeClientFiles}. */
    public Path adminProperties() {
        return dir.resolve(ADMIN_PROPERTIES);
    }

    /** The JAAS line a Kafka client logs in with as {@code user}. */
    public static String jaasConfig(final String user, final String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + user
                + "\" password=\""
                + password
                + "\";";
    }

    /** The connection settings of {@code user}: TLS with this cluster's truststore, SCRAM login. */
    Map<String, String> clientSettings(
            final String user,
            final String password,
            final String bootstrapServers,
            final String registryUrl) {
        final Map<String, String> s = new LinkedHashMap<>();
        s.put("bootstrap.servers", bootstrapServers);
        s.put("security.protocol", "SASL_SSL");
        s.put("sasl.mechanism", MECHANISM);
        s.put("sasl.jaas.config", jaasConfig(user, password));
        s.put("ssl.truststore.location", truststore().toString());
        s.put("ssl.truststore.password", storePassword);
        s.put("ssl.truststore.type", "PKCS12");
        s.put("schema.registry.url", registryUrl);
        s.put("schema.registry.ssl.truststore.location", truststore().toString());
        s.put("schema.registry.ssl.truststore.password", storePassword);
        s.put("schema.registry.ssl.truststore.type", "PKCS12");
        return s;
    }

    /** The super user's Kafka client settings. */
    Map<String, Object> adminKafkaSettings(final String bootstrapServers) {
        final Map<String, Object> s = new LinkedHashMap<>();
        clientSettings(SUPER_USER, adminPassword, bootstrapServers, "unused")
                .forEach(
                        (k, v) -> {
                            if (!k.startsWith("schema.registry.")) {
                                s.put(k, v);
                            }
                        });
        return s;
    }

    /** The settings of {@value #CLIENT_USER}. */
    Map<String, String> clientSettings(final String bootstrapServers, final String registryUrl) {
        return clientSettings(CLIENT_USER, clientPassword, bootstrapServers, registryUrl);
    }

    /** The settings of {@value #SUPER_USER}. */
    Map<String, String> adminSettings(final String bootstrapServers, final String registryUrl) {
        return clientSettings(SUPER_USER, adminPassword, bootstrapServers, registryUrl);
    }

    /** Writes {@code client.properties} and {@code admin.properties} for the running cluster. */
    void writeClientFiles(final String bootstrapServers, final String registryUrl)
            throws IOException {
        writeSecret(
                clientProperties(),
                clientSettings(bootstrapServers, registryUrl),
                "user "
                        + CLIENT_USER
                        + " of the secure embedded cluster: pass to any rwml command as"
                        + " --client-config");
        writeSecret(
                adminProperties(),
                adminSettings(bootstrapServers, registryUrl),
                "super user " + SUPER_USER + " of the secure embedded cluster: for ACLs and users");
    }

    /** The broker's settings for a client listener {@code BROKER} and {@code CONTROLLER}. */
    Map<String, String> brokerProperties(final int brokerPort, final int controllerPort) {
        final Map<String, String> p = new LinkedHashMap<>();
        p.put(
                "listeners",
                "BROKER://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "BROKER://127.0.0.1:" + brokerPort);
        p.put("inter.broker.listener.name", "BROKER");
        p.put("listener.security.protocol.map", "BROKER:SASL_SSL,CONTROLLER:SASL_SSL");
        // Clients and the broker itself log in with SCRAM; the controller listener uses PLAIN
        // with a fixed user, because SCRAM credentials live in the metadata the controller serves.
        p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
        p.put("listener.name.broker.sasl.enabled.mechanisms", MECHANISM);
        p.put(
                "listener.name.broker.scram-sha-512.sasl.jaas.config",
                jaasConfig(SUPER_USER, adminPassword));
        p.put("sasl.mechanism.controller.protocol", "PLAIN");
        p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.put(
                "listener.name.controller.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                        + SUPER_USER
                        + "\" password=\""
                        + adminPassword
                        + "\" user_"
                        + SUPER_USER
                        + "=\""
                        + adminPassword
                        + "\";");
        p.put(
                "ssl.keystore.location",
                dir.resolve(LocalCertificates.SERVER_KEYSTORE).toAbsolutePath().toString());
        p.put("ssl.keystore.password", storePassword);
        p.put("ssl.key.password", storePassword);
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.truststore.location", truststore().toAbsolutePath().toString());
        p.put("ssl.truststore.password", storePassword);
        p.put("ssl.truststore.type", "PKCS12");
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("allow.everyone.if.no.acl.found", "false");
        p.put("super.users", "User:" + SUPER_USER);
        return p;
    }

    /** The {@code --add-scram} argument that formats the log with the super user's credential. */
    String superUserScram() {
        return MECHANISM + "=[name=" + SUPER_USER + ",password=" + adminPassword + "]";
    }

    /** Writes the registry's settings: HTTPS only on {@code httpsPort}, the server certificate. */
    void writeRegistryConfig(final Path file, final int httpsPort) throws IOException {
        Files.createDirectories(file.getParent());
        final Map<String, String> c = new LinkedHashMap<>();
        c.put("quarkus.http.ssl-port", String.valueOf(httpsPort));
        c.put("quarkus.http.insecure-requests", "disabled");
        c.put(
                "quarkus.http.ssl.certificate.key-store-file",
                dir.resolve(LocalCertificates.SERVER_KEYSTORE).toAbsolutePath().toString());
        c.put("quarkus.http.ssl.certificate.key-store-file-type", "PKCS12");
        c.put("quarkus.http.ssl.certificate.key-store-password", storePassword);
        writeSecret(file, c, "HTTPS of the secure embedded cluster's registry; rewritten on start");
    }

    /** The store password (every store of the directory has it). */
    String storePassword() {
        return storePassword;
    }

    /**
     * Gives {@value #CLIENT_USER} its SCRAM credential and the ACLs the pipeline needs: every
     * operation on topics, groups and transactional ids starting {@value #RESOURCE_PREFIX}, and
     * describing the cluster. Run on every start; both are idempotent.
     */
    void grantClientUser(final Admin admin) throws IOException {
        try {
            admin.alterUserScramCredentials(
                            List.of(
                                    new UserScramCredentialUpsertion(
                                            CLIENT_USER,
                                            new ScramCredentialInfo(
                                                    ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS),
                                            clientPassword)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            admin.createAcls(clientAcls()).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException(
                    "could not create user " + CLIENT_USER + " and its ACLs: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while creating user " + CLIENT_USER, e);
        }
    }

    /** The ACLs of {@value #CLIENT_USER}. */
    static List<AclBinding> clientAcls() {
        final String principal = "User:" + CLIENT_USER;
        final List<AclBinding> acls = new ArrayList<>();
        for (final ResourceType type :
                List.of(ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)) {
            acls.add(
                    new AclBinding(
                            new ResourcePattern(type, RESOURCE_PREFIX, PatternType.PREFIXED),
                            new AccessControlEntry(
                                    principal, "*", AclOperation.ALL, AclPermissionType.ALLOW)));
        }
        acls.addAll(clusterAcls(principal));
        return acls;
    }

    /**
     * What every pipeline principal needs on the cluster itself: Describe, DescribeConfigs and
     * IdempotentWrite (the stages' idempotent and transactional producers).
     */
    public static List<AclBinding> clusterAcls(final String principal) {
        final List<AclBinding> acls = new ArrayList<>();
        for (final AclOperation op :
                List.of(
                        AclOperation.DESCRIBE,
                        AclOperation.DESCRIBE_CONFIGS,
                        AclOperation.IDEMPOTENT_WRITE)) {
            acls.add(
                    new AclBinding(
                            new ResourcePattern(
                                    ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                            new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
        }
        return acls;
    }

    private static String randomSecret() {
        final byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static void writeSecret(
            final Path file, final Map<String, String> values, final String comment)
            throws IOException {
        // Plain key=value lines that people read and copy: no value here holds a backslash or a
        // line break, so no escaping is needed for Properties.load to read them back.
        final StringBuilder text = new StringBuilder("# " + comment + "\n");
        values.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp);
        ownerOnly(tmp);
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void ownerOnly(final Path file) {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system: the directory's own protection applies.
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
