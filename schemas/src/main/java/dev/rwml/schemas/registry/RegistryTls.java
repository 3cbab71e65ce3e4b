package dev.rwml.schemas.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Builds the TLS context for https registries from trust- and key-store settings. */
public final class RegistryTls {

    private RegistryTls() {}

    /**
     * A TLS context from {@code schema.registry.ssl.truststore.*} and {@code
     * schema.registry.ssl.keystore.*}, or empty when neither store is configured (the JVM default
     * then applies).
     */
    public static Optional<SSLContext> fromStores(final Map<String, ?> config) {
        final String trustLocation =
                RegistryConfig.string(config, RegistryConfig.SSL_TRUSTSTORE_LOCATION, null);
        final String keyLocation =
                RegistryConfig.string(config, RegistryConfig.SSL_KEYSTORE_LOCATION, null);
        if (isBlank(trustLocation) && isBlank(keyLocation)) {
            return Optional.empty();
        }
        try {
            TrustManagerFactory trust = null;
            if (!isBlank(trustLocation)) {
                final KeyStore store =
                        load(
                                trustLocation,
                                RegistryConfig.string(
                                        config, RegistryConfig.SSL_TRUSTSTORE_TYPE, "PKCS12"),
                                RegistryConfig.string(
                                        config, RegistryConfig.SSL_TRUSTSTORE_PASSWORD, null));
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(store);
            }
            KeyManagerFactory keys = null;
            if (!isBlank(keyLocation)) {
                final String storePassword =
                        RegistryConfig.string(config, RegistryConfig.SSL_KEYSTORE_PASSWORD, null);
                final KeyStore store =
                        load(
                                keyLocation,
                                RegistryConfig.string(
                                        config, RegistryConfig.SSL_KEYSTORE_TYPE, "PKCS12"),
                                storePassword);
                final String keyPassword =
                        RegistryConfig.string(
                                config, RegistryConfig.SSL_KEY_PASSWORD, storePassword);
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(store, keyPassword == null ? null : keyPassword.toCharArray());
            }
            final SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    keys == null ? null : keys.getKeyManagers(),
                    trust == null ? null : trust.getTrustManagers(),
                    null);
            return Optional.of(context);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    "cannot build the schema registry TLS context from "
                            + RegistryConfig.SSL_PREFIX
                            + "* settings: "
                            + e.getMessage()
                            + "; check the store paths, types (PKCS12 or JKS) and passwords",
                    e);
        }
    }

    private static KeyStore load(final String location, final String type, final String password)
            throws GeneralSecurityException, IOException {
        final KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password == null ? null : password.toCharArray());
        }
        return store;
    }

    private static boolean isBlank(final String value) {
        return value == null || value.isBlank();
    }
}
