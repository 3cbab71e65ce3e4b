package dev.rwml.schemas.registry;

import javax.net.ssl.SSLException;

/**
 * The TLS handshake with the registry failed (its certificate is not trusted, or names another
 * host): trying again cannot help until the TLS settings change.
 */
public final class RegistryTlsException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public RegistryTlsException(final String registry, final SSLException cause) {
        super(
                "TLS handshake with the schema registry at "
                        + registry
                        + " failed ("
                        + cause.getMessage()
                        + "): its certificate is not trusted by "
                        + RegistryConfig.SSL_TRUSTSTORE_LOCATION
                        + " (or names another host); point "
                        + RegistryConfig.SSL_PREFIX
                        + "truststore.* at a truststore holding the registry's CA (`rwml up"
                        + " --secure` writes <data-dir>/secure/truststore.p12)",
                -1,
                -1,
                cause);
    }

    /**
     * Whether a handshake failed on the certificate (untrusted, expired, wrong host) rather than on
     * the connection, which a retry may fix.
     */
    public static boolean rejectsCertificate(final SSLException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.security.GeneralSecurityException) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    @Override
    public boolean isRetriable() {
        return false;
    }
}
