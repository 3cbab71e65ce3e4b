package dev.rwml.runtime.settings;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may reach one of rwml's HTTP surfaces ({@code rwml serve}, the status page, a stage's
 * metrics): the address it listens on, this machine only unless told otherwise, and the API key
 * that any other address requires, sent as {@code Authorization: Bearer <key>} or, so that a
 * browser can ask for it, as the password of HTTP basic authentication (any user name).
 *
 * @param host the address to listen on
 * @param apiKey the key requests must carry; empty: none (loopback only)
 */
public record HttpAccess(String host, Optional<String> apiKey) {

    /** The address listened on when none is given: this machine only. */
    public static final String LOOPBACK = "127.0.0.1";

    /** The environment variable that holds the API key when no option gives one. */
    public static final String API_KEY_ENV = "RWML_API_KEY";

    /**
     * Checks that an address other machines can reach has a key.
     *
     * @throws IllegalArgumentException naming what to do, when it has none or is no address here
     */
    public HttpAccess {
        Objects.requireNonNull(host, "host");
        apiKey = apiKey.filter(k -> !k.isBlank());
        if (apiKey.isEmpty() && !isLoopback(host)) {
            throw new IllegalArgumentException(
                    "listening on "
                            + host
                            + " lets other machines in: give an API key (--api-key, for a stage's"
                            + " metrics --metrics-api-key, or "
                            + API_KEY_ENV
                            + "), or leave the address out to listen on this machine only");
        }
    }

    /**
     * The longest a client may take to send a whole request (request line, headers and body) to a
     * JDK HTTP server of this process before its connection is cut, so that clients that send a
     * byte a second do not hold the server's threads.
     */
    public static final Duration REQUEST_DEADLINE = Duration.ofSeconds(30);

    /** The JDK server's settings {@link #listen} sets, unless the JVM was given them. */
    private static final Map<String, String> SERVER_SETTINGS =
            Map.of(
                    // Small answers written after their headers would otherwise wait out Nagle's
                    // algorithm against the client's delayed ACK (tens of ms each).
                    "sun.net.httpserver.nodelay",
                    "true",
                    // Seconds; a request still being received after it is closed (an answer being
                    // computed is not cut).
                    "sun.net.httpserver.maxReqTime",
                    Long.toString(REQUEST_DEADLINE.toSeconds()));

    /**
     * A JDK HTTP server bound to {@link #host} and {@code port} (0: any free one), not started. The
     * JDK reads its settings once, when the process's first server is created: every rwml HTTP
     * surface is created here, so they all get them.
     */
    public HttpServer listen(final int port) throws IOException {
        SERVER_SETTINGS.forEach(
                (key, value) -> {
                    if (System.getProperty(key) == null) {
                        System.setProperty(key, value);
                    }
                });
        return HttpServer.create(new InetSocketAddress(host, port), 0);
    }

    /** This machine only, with no key. */
    public static HttpAccess loopback() {
        return new HttpAccess(LOOPBACK, Optional.empty());
    }

    /** {@code host} with the key an option gave, else the one in {@link #API_KEY_ENV}, if any. */
    public static HttpAccess of(final String host, final String keyOption) {
        return new HttpAccess(
                host,
                Optional.ofNullable(keyOption != null ? keyOption : System.getenv(API_KEY_ENV)));
    }

    /**
     * Why a request with this {@code Authorization} header (null when absent) is refused, or empty
     * when it is let in; keys are compared in constant time.
     */
    public Optional<String> refusal(final String authorization) {
        if (apiKey.isEmpty()) {
            return Optional.empty();
        }
        if (MessageDigest.isEqual(
                givenKey(authorization).getBytes(StandardCharsets.UTF_8),
                apiKey.get().getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(
                authorization == null
                        ? "this server needs an API key: send Authorization: Bearer <key>"
                        : "the API key is not this server's (--api-key or " + API_KEY_ENV + ")");
    }

    /** The key a header carries: a bearer token, or a basic password; empty when none. */
    private static String givenKey(final String authorization) {
        if (authorization == null) {
            return "";
        }
        if (authorization.startsWith("Bearer ")) {
            return authorization.substring("Bearer ".length());
        }
        if (authorization.startsWith("Basic ")) {
            try {
                final String pair =
                        new String(
                                Base64.getDecoder()
                                        .decode(authorization.substring("Basic ".length()).trim()),
                                StandardCharsets.UTF_8);
                final int colon = pair.indexOf(':');
                return colon < 0 ? "" : pair.substring(colon + 1);
            } catch (final IllegalArgumentException notBase64) {
                return "";
            }
        }
        return "";
    }

    private static boolean isLoopback(final String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException(host + " is not an address of this machine", e);
        }
    }

    /** Never shows the key. */
    @Override
    public String toString() {
        return host + (apiKey.isPresent() ? " (API key required)" : "");
    }
}
