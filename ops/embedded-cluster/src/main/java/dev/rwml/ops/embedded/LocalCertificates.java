package dev.rwml.ops.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private certificate authority and one server certificate for {@code localhost} and {@code
 * 127.0.0.1}, made with the JDK's {@code keytool} (run as a child process, so no crypto library is
 * needed): {@code ca.p12} (the CA's key), {@code ca.crt} (its certificate, PEM), {@code server.p12}
 * (the server's key with its chain, for the broker and the registry) and {@code truststore.p12}
 * (the CA certificate alone, for clients), all PKCS12 and all in one directory.
 */
final class LocalCertificates {

    static final String CA_KEYSTORE = "ca.p12";
    static final String CA_CERTIFICATE = "ca.crt";
    static final String SERVER_KEYSTORE = "server.p12";
    static final String TRUSTSTORE = "truststore.p12";

    /** The alias of the server's key in {@link #SERVER_KEYSTORE}. */
    static final String SERVER_ALIAS = "localhost";

    private static final String CA_ALIAS = "rwml-ca";
    private static final long TOOL_TIMEOUT_SECONDS = 120;

    private LocalCertificates() {}

    /**
     * Writes the four stores into {@code dir}; a store's password is {@code storePassword}.
     *
     * @param caName the CA's common name, so that two data directories' CAs tell apart
     */
    static void create(final Path dir, final String caName, final String storePassword)
            throws IOException {
        final Path ca = dir.resolve(CA_KEYSTORE);
        final Path server = dir.resolve(SERVER_KEYSTORE);
        final Path caCert = dir.resolve(CA_CERTIFICATE);
        final Path request = dir.resolve("server.csr");
        final Path signed = dir.resolve("server.crt");
        try {
            keytool(
                    "-genkeypair",
                    "-alias",
                    CA_ALIAS,
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=" + caName,
                    "-ext",
                    "bc:c",
                    "-validity",
                    "3650",
                    "-keystore",
                    ca.toString(),
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    storePassword);
            keytool(
                    "-exportcert",
                    "-rfc",
                    "-alias",
                    CA_ALIAS,
                    "-keystore",
                    ca.toString(),
                    "-storepass",
                    storePassword,
                    "-file",
                    caCert.toString());
            keytool(
                    "-genkeypair",
                    "-alias",
                    SERVER_ALIAS,
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=localhost",
                    "-validity",
                    "3650",
                    "-keystore",
                    server.toString(),
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    storePassword);
            keytool(
                    "-certreq",
                    "-alias",
                    SERVER_ALIAS,
                    "-keystore",
                    server.toString(),
                    "-storepass",
                    storePassword,
                    "-file",
                    request.toString());
            keytool(
                    "-gencert",
                    "-rfc",
                    "-alias",
                    CA_ALIAS,
                    "-keystore",
                    ca.toString(),
                    "-storepass",
                    storePassword,
                    "-infile",
                    request.toString(),
                    "-outfile",
                    signed.toString(),
                    "-validity",
                    "3650",
                    "-ext",
                    "san=dns:localhost,ip:127.0.0.1",
                    "-ext",
                    "eku=serverAuth,clientAuth");
            // The chain needs the CA in the store before the signed certificate replaces the
            // self-signed one.
            importCertificate(CA_ALIAS, caCert, server, storePassword);
            importCertificate(SERVER_ALIAS, signed, server, storePassword);
            importCertificate(CA_ALIAS, caCert, dir.resolve(TRUSTSTORE), storePassword);
        } finally {
            Files.deleteIfExists(request);
            Files.deleteIfExists(signed);
        }
    }

    /** Adds the certificate in {@code file} to the PKCS12 {@code store} under {@code alias}. */
    private static void importCertificate(
            final String alias, final Path file, final Path store, final String storePassword)
            throws IOException {
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                alias,
                "-file",
                file.toString(),
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                storePassword);
    }

    private static void keytool(final String... args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        final String output;
        try {
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(TOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("keytool " + args[0] + " did not finish");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running keytool " + args[0], e);
        }
        if (process.exitValue() != 0) {
            throw new IOException(
                    "keytool "
                            + args[0]
                            + " failed with exit code "
                            + process.exitValue()
                            + ": "
                            + output.strip());
        }
    }
}
