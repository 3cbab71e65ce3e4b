package dev.rwml.runtime.errors;

import dev.rwml.runtime.settings.Connection;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.security.UnrecoverableKeyException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SaslAuthenticationException;

/**
 * The one line a user reads when a command fails: what failed, the root cause found by walking the
 * exception's causes, and the setting or file to fix where a {@linkplain #CAUSES known cause} says
 * so; e.g. {@code Failed to create new KafkaAdminClient: the password of /s/truststore.p12 is wrong
 * (keystore password was incorrect); fix ssl.truststore.password in --client-config
 * /s/c.properties}. The stack trace is for the log file and {@code --verbose}, never this line.
 */
public final class ErrorLine {

    /** A root cause users meet, how to recognise it, and what to tell them. */
    private record Cause(String kind, Predicate<Throwable> matches, Explainer explain) {}

    /** The cause and its fix, in words, for one throwable of a known kind. */
    @FunctionalInterface
    private interface Explainer {
        String explain(Throwable cause, Where where);
    }

    /**
     * What the line may name: the command's connection settings, the file they came from, and the
     * whole chain of causes.
     */
    private record Where(Map<String, String> settings, String clientConfig, List<Throwable> chain) {

        /** {@code key in --client-config FILE}, or where such a key goes without one. */
        String setting(final String key) {
            return key
                    + (clientConfig == null
                            ? " in a --client-config FILE"
                            : " in --client-config " + clientConfig);
        }

        /** The setting whose value is {@code path} (e.g. {@code ssl.truststore.location}). */
        Optional<String> keyOf(final String path) {
            // The client's own setting before a prefixed one naming the same file
            // (ssl.truststore.location before schema.registry.ssl.truststore.location).
            return settings.entrySet().stream()
                    .filter(e -> e.getValue().equals(path))
                    .map(Map.Entry::getKey)
                    .sorted(Comparator.comparingInt(String::length).thenComparing(k -> k))
                    .findFirst();
        }
    }

    private static final Pattern STORE = Pattern.compile("Failed to load SSL keystore (\\S+)");
    private static final int MAX_CAUSES = 32;

    /**
     * The known root causes, most specific first: the first of them that matches a throwable of the
     * chain (the deepest it matches) is the root cause the line names.
     */
    private static final List<Cause> CAUSES =
            List.of(
                    new Cause(
                            "wrong keystore or truststore password",
                            t -> message(t).contains("password was incorrect"),
                            ErrorLine::wrongStorePassword),
                    new Cause(
                            "wrong key password",
                            t -> t instanceof UnrecoverableKeyException,
                            (t, where) ->
                                    "the key in "
                                            + storeOf(where).orElse("the keystore")
                                            + " cannot be read with its password ("
                                            + message(t)
                                            + "); fix "
                                            + where.setting("ssl.key.password")),
                    new Cause(
                            "untrusted certificate",
                            t ->
                                    t instanceof CertPathBuilderException
                                            || t instanceof CertPathValidatorException
                                            || t instanceof SSLHandshakeException,
                            (t, where) ->
                                    "the server's certificate is not trusted ("
                                            + message(t)
                                            + "); put the cluster's CA in the truststore of "
                                            + where.setting("ssl.truststore.location")
                                            + " (`rwml up --secure` writes"
                                            + " <data-dir>/secure/truststore.p12)"),
                    new Cause(
                            "SASL login refused",
                            t -> t instanceof SaslAuthenticationException,
                            (t, where) ->
                                    "the login was refused ("
                                            + message(t)
                                            + "); fix the user or password of "
                                            + where.setting("sasl.jaas.config")),
                    new Cause(
                            "missing file",
                            t ->
                                    t instanceof NoSuchFileException
                                            || t instanceof FileNotFoundException
                                                    && message(t).contains("No such file"),
                            (t, where) ->
                                    "no file "
                                            + file(t)
                                            + fileSetting(file(t), where)
                                            + "; check the path"),
                    new Cause(
                            "unreadable file",
                            t ->
                                    t instanceof AccessDeniedException
                                            || message(t).contains("Permission denied"),
                            (t, where) ->
                                    "permission denied on "
                                            + file(t)
                                            + fileSetting(file(t), where)
                                            + "; make it readable by this user (chmod u+r)"
                                            + " or name another file"),
                    new Cause(
                            "a directory for a file",
                            t -> message(t).contains("Is a directory"),
                            (t, where) -> "a directory, not a file; name a file"),
                    new Cause(
                            "disk full",
                            t -> message(t).contains("No space left on device"),
                            (t, where) ->
                                    "the disk is full ("
                                            + message(t)
                                            + "); free space there or choose a --data-dir on"
                                            + " another disk"),
                    new Cause(
                            "port in use",
                            t ->
                                    t instanceof BindException
                                            || message(t).contains("Address already in use"),
                            (t, where) ->
                                    "the port is in use ("
                                            + message(t)
                                            + "); stop what holds it or choose another port"
                                            + " (--port)"),
                    new Cause(
                            "unknown host",
                            t ->
                                    t instanceof UnknownHostException
                                            || message(t).contains("No resolvable bootstrap urls"),
                            (t, where) ->
                                    "unknown host ("
                                            + message(t)
                                            + "); check the host names in --bootstrap-servers or"
                                            + " bootstrap.servers"),
                    new Cause(
                            "unreachable host",
                            t -> t instanceof ConnectException,
                            (t, where) ->
                                    "nothing answers ("
                                            + message(t)
                                            + "); start the cluster (`rwml up`) or fix the"
                                            + " address"),
                    new Cause(
                            "no answer",
                            t ->
                                    t instanceof java.util.concurrent.TimeoutException
                                            || t
                                                    instanceof
                                                    org.apache.kafka.common.errors.TimeoutException,
                            (t, where) ->
                                    "no answer in time ("
                                            + message(t)
                                            + "); check that the cluster runs (`rwml up`) and its"
                                            + " address (--bootstrap-servers)"),
                    new Cause(
                            "invalid setting",
                            t -> t instanceof ConfigException,
                            (t, where) ->
                                    "invalid setting ("
                                            + message(t)
                                            + "); fix it"
                                            + (where.clientConfig() == null
                                                    ? " where it is set (--set, --config FILE or"
                                                            + " --client-config FILE)"
                                                    : " in --client-config "
                                                            + where.clientConfig())),
                    new Cause(
                            "not a number",
                            t -> t instanceof NumberFormatException,
                            (t, where) -> "not a number (" + message(t) + "); give a number"),
                    new Cause(
                            "out of memory",
                            t -> t instanceof OutOfMemoryError,
                            (t, where) ->
                                    "out of memory ("
                                            + message(t)
                                            + "); give the JVM more (JAVA_OPTS=-Xmx8g) or lower"
                                            + " the batch (model.memory.limit, --set)"));

    private ErrorLine() {}

    /** The line for {@code error} without connection settings to name. */
    public static String of(final Throwable error) {
        return of(error, null, null);
    }

    /**
     * The line for {@code error} of a command that connects with {@code connection} (null when it
     * has none) whose settings came from {@code clientConfig} (null when from no file): a refused
     * login, ACL or certificate is explained by {@link AccessErrors} for that connection; any other
     * failure is its outermost message, then its root cause and fix.
     */
    public static String of(
            final Throwable error, final Connection connection, final String clientConfig) {
        if (connection != null && ErrorPolicy.isAccessFailure(error)) {
            try {
                final Optional<String> access = AccessErrors.explain(error, connection);
                if (access.isPresent()) {
                    return access.get();
                }
            } catch (RuntimeException unexplained) {
                // No answer from the cluster: the chain below still names the cause.
            }
        }
        final List<Throwable> chain = chain(error);
        final Where where =
                new Where(connection == null ? Map.of() : connection.asMap(), clientConfig, chain);
        final Throwable head = headline(chain);
        final String what = message(head);
        for (final Cause cause : CAUSES) {
            for (int i = chain.size() - 1; i >= 0; i--) {
                final Throwable t = chain.get(i);
                if ((t == head || !quotes(what, t)) && cause.matches().test(t)) {
                    final String explained = cause.explain().explain(t, where);
                    return t == head ? explained : join(what, explained);
                }
            }
        }
        final Throwable root = chain.get(chain.size() - 1);
        return root == head ? what : join(what, message(root));
    }

    /**
     * Whether the headline already quotes all {@code t} says (a path alone, as file errors say it,
     * is not enough: the line still names what is wrong with the file).
     */
    private static boolean quotes(final String what, final Throwable t) {
        return !(t instanceof FileSystemException) && what.contains(message(t));
    }

    /** {@code what: cause}, leaving out a cause the message already says. */
    private static String join(final String what, final String cause) {
        return what.contains(cause) ? what : what + ": " + cause;
    }

    /** The causes of {@code error}, outermost first, ending at a cycle or the root. */
    private static List<Throwable> chain(final Throwable error) {
        final List<Throwable> chain = new ArrayList<>();
        for (Throwable t = error;
                t != null && !chain.contains(t) && chain.size() < MAX_CAUSES;
                t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    /**
     * The outermost throwable that says something of its own: wrappers (an execution or completion
     * exception, an unchecked I/O exception whose message is its cause's) are skipped.
     */
    private static Throwable headline(final List<Throwable> chain) {
        for (int i = 0; i < chain.size() - 1; i++) {
            final Throwable t = chain.get(i);
            final Throwable cause = chain.get(i + 1);
            final boolean wrapper =
                    t instanceof ExecutionException
                            || t instanceof CompletionException
                            || t instanceof InvocationTargetException
                            || t instanceof UncheckedIOException
                            || t.getMessage() == null
                            || t.getMessage().equals(cause.toString());
            if (!wrapper) {
                return t;
            }
        }
        return chain.get(chain.size() - 1);
    }

    private static String wrongStorePassword(final Throwable cause, final Where where) {
        final String store = storeOf(where).orElse("the keystore or truststore");
        final String passwordKey =
                where.keyOf(store)
                        .filter(k -> k.endsWith(".location"))
                        .map(k -> k.replace(".location", ".password"))
                        .orElse("ssl.truststore.password or ssl.keystore.password");
        return "the password of "
                + store
                + " is wrong ("
                + message(cause)
                + "); fix "
                + where.setting(passwordKey);
    }

    /** The store Kafka failed to load, as its message names it. */
    private static Optional<String> storeOf(final Where where) {
        for (final Throwable t : where.chain()) {
            final Matcher store = STORE.matcher(message(t));
            if (store.find()) {
                return Optional.of(store.group(1));
            }
        }
        return Optional.empty();
    }

    /** The path an I/O exception names. */
    private static String file(final Throwable t) {
        if (t instanceof FileSystemException fs && fs.getFile() != null) {
            return fs.getFile();
        }
        final String message = message(t);
        final int paren = message.indexOf(" (");
        return paren > 0 ? message.substring(0, paren) : message;
    }

    /** {@code (ssl.truststore.location in --client-config F)} when a setting names the path. */
    private static String fileSetting(final String path, final Where where) {
        return where.keyOf(path).map(k -> " (" + where.setting(k) + ")").orElse("");
    }

    /**
     * The throwable's message (its first line: a parser's adds the source location on the next), or
     * its kind in words when it has none.
     */
    static String message(final Throwable t) {
        if (t.getMessage() != null && !t.getMessage().isBlank()) {
            return t.getMessage().strip().lines().findFirst().orElse("");
        }
        return t.getClass()
                .getSimpleName()
                .replaceAll("([a-z])([A-Z])", "$1 $2")
                .toLowerCase(Locale.ROOT);
    }
}
