package dev.rwml.schemas.registry;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * How to reach a schema registry: URLs, credentials, TLS and retry bounds, read from Kafka-style
 * configuration maps with the Confluent serializer's key names.
 *
 * @param urls one or more base URLs, tried in turn when one is unreachable; {@code mock://<scope>}
 *     selects the in-memory registry
 * @param basicAuthUserInfo {@code user:password} for HTTP basic authentication, when set
 * @param sslContext the TLS context for https URLs, when not the JVM default
 * @param maxAttempts how many times one call is tried before it fails (at least 1)
 * @param initialBackoff the wait before the first retry; it doubles with each retry
 * @param maxBackoff the longest wait between two attempts (at least {@code initialBackoff})
 * @param requestTimeout how long one HTTP request may take
 */
public record RegistryConfig(
        List<String> urls,
        Optional<String> basicAuthUserInfo,
        Optional<SSLContext> sslContext,
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        Duration requestTimeout) {

    public static final String URL = "schema.registry.url";
    public static final String BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source";
    public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
    public static final String REGISTRY_BASIC_AUTH_USER_INFO =
            "schema.registry.basic.auth.user.info";
    public static final String SSL_PREFIX = "schema.registry.ssl.";
    public static final String SSL_CONTEXT = SSL_PREFIX + "context";
    public static final String SSL_TRUSTSTORE_LOCATION = SSL_PREFIX + "truststore.location";
    public static final String SSL_TRUSTSTORE_PASSWORD = SSL_PREFIX + "truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE = SSL_PREFIX + "truststore.type";
    public static final String SSL_KEYSTORE_LOCATION = SSL_PREFIX + "keystore.location";
    public static final String SSL_KEYSTORE_PASSWORD = SSL_PREFIX + "keystore.password";
    public static final String SSL_KEYSTORE_TYPE = SSL_PREFIX + "keystore.type";
    public static final String SSL_KEY_PASSWORD = SSL_PREFIX + "key.password";
    public static final String MAX_ATTEMPTS = "schema.registry.retry.max.attempts";
    public static final String RETRY_BACKOFF_MS = "schema.registry.retry.backoff.ms";
    public static final String RETRY_BACKOFF_MAX_MS = "schema.registry.retry.backoff.max.ms";
    public static final String REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";

    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    public RegistryConfig {
        Objects.requireNonNull(urls, "urls");
        if (urls.isEmpty() || urls.stream().anyMatch(u -> u == null || u.isBlank())) {
            throw new IllegalArgumentException(
                    "schema registry URL is missing: set "
                            + URL
                            + " (e.g. http://localhost:8081, http://host:8080/apis/ccompat/v7, or"
                            + " mock://<scope> in tests)");
        }
        urls = urls.stream().map(RegistryConfig::trimSlash).toList();
        final boolean mock = urls.get(0).startsWith("mock://");
        for (final String url : urls) {
            if (mock != url.startsWith("mock://")) {
                throw new IllegalArgumentException(
                        "schema registry URLs "
                                + urls
                                + " mix mock:// and real URLs; use one kind");
            }
            if (!mock && !url.startsWith("http://") && !url.startsWith("https://")) {
                throw new IllegalArgumentException(
                        "schema registry URL '"
                                + url
                                + "' must start with http://, https:// or mock://");
            }
        }
        basicAuthUserInfo = Objects.requireNonNull(basicAuthUserInfo, "basicAuthUserInfo");
        basicAuthUserInfo.ifPresent(
                info -> {
                    if (info.indexOf(':') < 1) {
                        throw new IllegalArgumentException(
                                BASIC_AUTH_USER_INFO + " must be user:password");
                    }
                });
        sslContext = Objects.requireNonNull(sslContext, "sslContext");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException(
                    MAX_ATTEMPTS + " must be at least 1, was " + maxAttempts);
        }
        requirePositive(initialBackoff, RETRY_BACKOFF_MS);
        requirePositive(maxBackoff, RETRY_BACKOFF_MAX_MS);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    RETRY_BACKOFF_MAX_MS
                            + " must be at least "
                            + RETRY_BACKOFF_MS
                            + " ("
                            + initialBackoff.toMillis()
                            + "), was "
                            + maxBackoff.toMillis());
        }
        requirePositive(requestTimeout, REQUEST_TIMEOUT_MS);
    }

    /** A configuration with defaults for everything but the URL (comma-separated for several). */
    public static RegistryConfig of(final String url) {
        return new RegistryConfig(
                splitUrls(url),
                Optional.empty(),
                Optional.empty(),
                DEFAULT_MAX_ATTEMPTS,
                DEFAULT_INITIAL_BACKOFF,
                DEFAULT_MAX_BACKOFF,
                DEFAULT_REQUEST_TIMEOUT);
    }

    /**
     * Reads the registry settings from a Kafka-style configuration map (the keys of Confluent's
     * serializers: {@code schema.registry.url}, {@code basic.auth.user.info}, {@code
     * schema.registry.ssl.*}).
     */
    public static RegistryConfig fromMap(final Map<String, ?> config) {
        final Object url = config.get(URL);
        if (url == null) {
            return of("");
        }
        final String source = string(config, BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO");
        if (!source.equalsIgnoreCase("USER_INFO") && !source.equalsIgnoreCase("URL")) {
            throw new IllegalArgumentException(
                    BASIC_AUTH_CREDENTIALS_SOURCE
                            + "="
                            + source
                            + " is not supported; use USER_INFO with "
                            + BASIC_AUTH_USER_INFO
                            + "=user:password");
        }
        String userInfo = string(config, BASIC_AUTH_USER_INFO, null);
        if (userInfo == null) {
            userInfo = string(config, REGISTRY_BASIC_AUTH_USER_INFO, null);
        }
        final Object given = config.get(SSL_CONTEXT);
        if (given != null && !(given instanceof SSLContext)) {
            throw new IllegalArgumentException(
                    SSL_CONTEXT + " must be a javax.net.ssl.SSLContext, was " + given.getClass());
        }
        final Optional<SSLContext> ssl =
                given != null ? Optional.of((SSLContext) given) : RegistryTls.fromStores(config);
        return new RegistryConfig(
                splitUrls(url.toString()),
                Optional.ofNullable(userInfo).filter(s -> !s.isBlank()),
                ssl,
                (int) number(config, MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS),
                Duration.ofMillis(
                        number(config, RETRY_BACKOFF_MS, DEFAULT_INITIAL_BACKOFF.toMillis())),
                Duration.ofMillis(
                        number(config, RETRY_BACKOFF_MAX_MS, DEFAULT_MAX_BACKOFF.toMillis())),
                Duration.ofMillis(
                        number(config, REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT.toMillis())));
    }

    /** This configuration with HTTP basic authentication. */
    public RegistryConfig withBasicAuth(final String user, final String password) {
        return new RegistryConfig(
                urls,
                Optional.of(user + ":" + password),
                sslContext,
                maxAttempts,
                initialBackoff,
                maxBackoff,
                requestTimeout);
    }

    /** This configuration with a given TLS context. */
    public RegistryConfig withSslContext(final SSLContext context) {
        return new RegistryConfig(
                urls,
                basicAuthUserInfo,
                Optional.of(context),
                maxAttempts,
                initialBackoff,
                maxBackoff,
                requestTimeout);
    }

    /** This configuration with other retry bounds. */
    public RegistryConfig withRetries(
            final int attempts, final Duration initial, final Duration max) {
        return new RegistryConfig(
                urls, basicAuthUserInfo, sslContext, attempts, initial, max, requestTimeout);
    }

    /** True when the URLs select the in-memory registry. */
    public boolean isMock() {
        return urls.get(0).startsWith("mock://");
    }

    /** The URLs as one string, for messages. */
    public String describeUrls() {
        return String.join(",", urls);
    }

    @Override
    public String toString() {
        // Never print the password.
        return "RegistryConfig[urls="
                + urls
                + ", basicAuth="
                + basicAuthUserInfo.map(u -> u.substring(0, u.indexOf(':')) + ":***").orElse("none")
                + ", tls="
                + (sslContext.isPresent() ? "custom" : "default")
                + ", maxAttempts="
                + maxAttempts
                + ", initialBackoff="
                + initialBackoff
                + ", maxBackoff="
                + maxBackoff
                + ", requestTimeout="
                + requestTimeout
                + "]";
    }

    private static List<String> splitUrls(final String urls) {
        return Arrays.stream(urls.split(",")).map(String::trim).toList();
    }

    private static String trimSlash(final String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static void requirePositive(final Duration value, final String key) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(key + " must be positive, was " + value);
        }
    }

    static String string(final Map<String, ?> config, final String key, final String fallback) {
        final Object value = config.get(key);
        if (value == null) {
            return fallback;
        }
        if (value instanceof org.apache.kafka.common.config.types.Password password) {
            return password.value();
        }
        return value.toString();
    }

    private static long number(final Map<String, ?> config, final String key, final long fallback) {
        final Object value = config.get(key);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    key + " must be a whole number, was '" + value + "'", e);
        }
    }
}
