package dev.rwml.runtime.errors;

import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.registry.RegistryTlsException;
import dev.rwml.schemas.registry.RegistryUnauthorizedException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * Turns a refused login, permission or certificate ({@link ErrorPolicy#isAccessFailure}) into a
 * message that says which it was, for which principal and resource, and what to change: the {@code
 * kafka-acls.sh} line that grants a missing ACL, the setting that holds a wrong password, the
 * truststore that does not trust the broker's CA.
 */
public final class AccessErrors {

    /** The operations a stage uses on topics, in the order a grant line names them. */
    private static final List<AclOperation> TOPIC_OPERATIONS =
            List.of(
                    AclOperation.READ,
                    AclOperation.WRITE,
                    AclOperation.DESCRIBE,
                    AclOperation.DESCRIBE_CONFIGS);

    private static final Pattern USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");
    private static final int PROBE_MS = 5_000;

    private AccessErrors() {}

    /**
     * What {@code error} means for a client of {@code connection}, or empty when it is no access
     * failure. A topic authorization failure is checked with the principal's own admin client,
     * which asks the broker for the operations it is allowed, so the message names the missing
     * ones.
     */
    public static Optional<String> explain(final Throwable error, final Connection connection) {
        if (!ErrorPolicy.isAccessFailure(error)) {
            return Optional.empty();
        }
        final String principal = principal(connection);
        final String bootstrap = connection.bootstrapServers();
        final Throwable cause = accessCause(error);
        if (cause instanceof SaslAuthenticationException) {
            return Optional.of(
                    "Kafka at "
                            + bootstrap
                            + " refused the login of "
                            + principal
                            + " ("
                            + connection.kafka().getOrDefault("sasl.mechanism", "GSSAPI")
                            + ": "
                            + cause.getMessage()
                            + "): the password in sasl.jaas.config is wrong or the user has no"
                            + " credential on the cluster; check the client config file (`rwml up"
                            + " --secure` writes <data-dir>/secure/client.properties)");
        }
        if (cause instanceof SslAuthenticationException) {
            return Optional.of(
                    "TLS handshake with Kafka at "
                            + bootstrap
                            + " failed ("
                            + innermost(cause)
                            + "): the broker's certificate is not trusted by ssl.truststore.location="
                            + connection.kafka().getOrDefault("ssl.truststore.location", "(unset)")
                            + " (or names another host); use a truststore holding the cluster's CA"
                            + " (`rwml up --secure` writes <data-dir>/secure/truststore.p12)");
        }
        if (cause instanceof AuthenticationException) {
            return Optional.of(
                    "Kafka at "
                            + bootstrap
                            + " refused the connection of "
                            + principal
                            + ": "
                            + cause.getMessage()
                            + "; check security.protocol, sasl.* and ssl.* in the client config");
        }
        if (cause instanceof TopicAuthorizationException topics) {
            return Optional.of(topicMessage(topics.unauthorizedTopics(), principal, connection));
        }
        if (cause instanceof GroupAuthorizationException group) {
            final String id = group.groupId() == null ? "GROUP" : group.groupId();
            return Optional.of(
                    denied(principal, "group " + id, bootstrap)
                            + grant(
                                    bootstrap,
                                    principal,
                                    List.of(AclOperation.READ),
                                    "--group " + id));
        }
        if (cause instanceof TransactionalIdAuthorizationException) {
            return Optional.of(
                    denied(principal, "its transactional id", bootstrap)
                            + grant(
                                    bootstrap,
                                    principal,
                                    List.of(AclOperation.WRITE, AclOperation.DESCRIBE),
                                    "--transactional-id rwml --resource-pattern-type prefixed"));
        }
        if (cause instanceof ClusterAuthorizationException) {
            return Optional.of(
                    denied(principal, "the cluster", bootstrap)
                            + grant(
                                    bootstrap,
                                    principal,
                                    List.of(AclOperation.DESCRIBE, AclOperation.IDEMPOTENT_WRITE),
                                    "--cluster"));
        }
        if (cause instanceof AuthorizationException) {
            return Optional.of(
                    denied(principal, "a resource", bootstrap)
                            + " ("
                            + cause.getMessage()
                            + "); a super user can grant it with kafka-acls.sh");
        }
        // The registry's own messages already say what to check.
        return Optional.of(cause.getMessage());
    }

    /** The principal a connection logs in as, as ACLs name it. */
    static String principal(final Connection connection) {
        final String jaas = connection.kafka().get("sasl.jaas.config");
        if (jaas != null) {
            final Matcher user = USERNAME.matcher(jaas);
            if (user.find()) {
                return "User:" + user.group(1);
            }
        }
        final String protocol = connection.kafka().getOrDefault("security.protocol", "PLAINTEXT");
        if (protocol.startsWith("SASL")) {
            return "the SASL user of sasl.jaas.config";
        }
        if (protocol.equals("SSL") && connection.kafka().containsKey("ssl.keystore.location")) {
            return "the certificate principal of ssl.keystore.location";
        }
        return "User:ANONYMOUS";
    }

    private static String topicMessage(
            final Set<String> unauthorized, final String principal, final Connection connection) {
        final Set<String> topics = new TreeSet<>(unauthorized);
        final String bootstrap = connection.bootstrapServers();
        final String what =
                topics.size() == 1 ? "topic " + topics.iterator().next() : "topics " + topics;
        final StringBuilder message = new StringBuilder(denied(principal, what, bootstrap));
        for (final String topic : topics) {
            final List<AclOperation> missing = missingOperations(topic, connection);
            message.append(grant(bootstrap, principal, missing, "--topic " + topic));
        }
        return message.toString();
    }

    /**
     * The topic operations the principal lacks on {@code topic}, as the broker reports what it may
     * do there; Read when the broker cannot be asked.
     */
    static List<AclOperation> missingOperations(final String topic, final Connection connection) {
        final Map<String, Object> config =
                connection.kafkaConfig(
                        Map.of(
                                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, PROBE_MS,
                                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, PROBE_MS,
                                AdminClientConfig.CLIENT_ID_CONFIG, "rwml-access-check"));
        try (Admin admin = Admin.create(config)) {
            final TopicDescription description =
                    admin.describeTopics(
                                    List.of(topic),
                                    new DescribeTopicsOptions().includeAuthorizedOperations(true))
                            .allTopicNames()
                            .get(PROBE_MS * 2L, TimeUnit.MILLISECONDS)
                            .get(topic);
            return missing(description.authorizedOperations());
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                // Not even Describe: the topic is invisible to the principal.
                return List.of(AclOperation.DESCRIBE, AclOperation.READ);
            }
            return List.of(AclOperation.READ);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(AclOperation.READ);
        } catch (RuntimeException | java.util.concurrent.TimeoutException e) {
            return List.of(AclOperation.READ);
        }
    }

    /** The stage operations not among {@code authorized} (Read first); Read when all are. */
    static List<AclOperation> missing(final Collection<AclOperation> authorized) {
        if (authorized == null) {
            return List.of(AclOperation.READ);
        }
        final Set<AclOperation> have = EnumSet.noneOf(AclOperation.class);
        have.addAll(authorized);
        if (have.contains(AclOperation.ALL)) {
            return List.of(AclOperation.READ);
        }
        final List<AclOperation> missing = new ArrayList<>();
        for (final AclOperation op : TOPIC_OPERATIONS) {
            if (!have.contains(op)) {
                missing.add(op);
            }
        }
        return missing.isEmpty() ? List.of(AclOperation.READ) : missing;
    }

    private static String denied(
            final String principal, final String resource, final String bootstrap) {
        return principal + " is not authorized on " + resource + " (Kafka at " + bootstrap + ")";
    }

    /** The {@code kafka-acls.sh} line that grants {@code operations} on a resource. */
    static String grant(
            final String bootstrap,
            final String principal,
            final List<AclOperation> operations,
            final String resource) {
        final StringBuilder line =
                new StringBuilder("; missing ")
                        .append(names(operations))
                        .append(" on ")
                        .append(
                                resource.replace(" --resource-pattern-type prefixed", " (prefix)")
                                        .replace("--", ""))
                        .append(". Grant as a super user: kafka-acls.sh --bootstrap-server ")
                        .append(bootstrap)
                        .append(" --command-config admin.properties --add --allow-principal ")
                        .append(principal);
        for (final AclOperation op : operations) {
            line.append(" --operation ").append(aclName(op));
        }
        return line.append(' ').append(resource).toString();
    }

    private static String names(final List<AclOperation> operations) {
        final List<String> names = new ArrayList<>();
        operations.forEach(op -> names.add(aclName(op)));
        return String.join(", ", names);
    }

    /** The operation as kafka-acls.sh spells it: {@code DESCRIBE_CONFIGS} is DescribeConfigs. */
    static String aclName(final AclOperation op) {
        final StringBuilder name = new StringBuilder();
        for (final String part : op.name().split("_")) {
            name.append(part.charAt(0))
                    .append(part.substring(1).toLowerCase(java.util.Locale.ROOT));
        }
        return name.toString();
    }

    private static Throwable accessCause(final Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof AuthenticationException
                    || cause instanceof AuthorizationException
                    || cause instanceof RegistryUnauthorizedException
                    || cause instanceof RegistryTlsException) {
                return cause;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return error;
    }

    private static String innermost(final Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }
}
