package dev.rwml.ops.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the Apicurio Registry distribution that the build fetched and unpacks it once into a shared
 * cache directory.
 *
 * <p>Lookup order for an unpacked distribution: system property {@code rwml.apicurio.home}, env
 * {@code RWML_APICURIO_HOME}. Otherwise the archive: system property {@code rwml.apicurio.archive},
 * env {@code RWML_APICURIO_ARCHIVE}, the local Maven repository of the build, then {@code
 * ~/.m2/repository}. Archives unpack under {@code rwml.cache.dir} / {@code RWML_CACHE_DIR}, default
 * {@code ~/.cache/rwml}.
 */
record ApicurioDistribution(Path home, Path runnerJar, String mainClass) {

    private static final Logger LOG = LoggerFactory.getLogger(ApicurioDistribution.class);

    private static final Properties BUILD = loadBuildProperties();

    static String version() {
        return BUILD.getProperty("apicurio.version");
    }

    /** Returns the unpacked distribution, unpacking the archive first if no JVM did it yet. */
    static ApicurioDistribution locate() throws IOException {
        final String home = setting("rwml.apicurio.home", "RWML_APICURIO_HOME");
        if (home != null) {
            return fromHome(Path.of(home));
        }
        final Path target = cacheDir().resolve("apicurio-registry-" + version());
        if (!Files.isDirectory(target)) {
            unpack(archive(), target);
        }
        return fromHome(target);
    }

    private static ApicurioDistribution fromHome(final Path home) throws IOException {
        final String jarName = "apicurio-registry-app-" + version() + "-runner.jar";
        final Path runner;
        try (Stream<Path> files = Files.walk(home, 3)) {
            runner =
                    files.filter(p -> p.getFileName().toString().equals(jarName))
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new IOException(
                                                    "No "
                                                            + jarName
                                                            + " under "
                                                            + home
                                                            + "; delete that directory so it is"
                                                            + " unpacked again from the archive"));
        }
        try (JarFile jar = new JarFile(runner.toFile())) {
            final String main = jar.getManifest().getMainAttributes().getValue("Main-Class");
            if (main == null) {
                throw new IOException(runner + " names no Main-Class in its manifest");
            }
            return new ApicurioDistribution(home, runner, main);
        }
    }

    private static Path archive() throws IOException {
        final String name = "apicurio-registry-app-" + version() + "-all.tar.gz";
        final String explicit = setting("rwml.apicurio.archive", "RWML_APICURIO_ARCHIVE");
        if (explicit != null) {
            final Path p = Path.of(explicit);
            if (!Files.isRegularFile(p)) {
                throw new IOException("rwml.apicurio.archive names no file: " + p);
            }
            return p;
        }
        final Path relative = Path.of("io", "apicurio", "apicurio-registry-app", version(), name);
        final Path built = Path.of(BUILD.getProperty("local.repository", "")).resolve(relative);
        if (Files.isRegularFile(built)) {
            return built;
        }
        final Path home =
                Path.of(System.getProperty("user.home"), ".m2", "repository").resolve(relative);
        if (Files.isRegularFile(home)) {
            return home;
        }
        throw new IOException(
                "The Apicurio Registry archive "
                        + name
                        + " is not in "
                        + built.getParent()
                        + " nor "
                        + home.getParent()
                        + ". Build once with Maven (`mvn -B -pl ops/embedded-cluster install"
                        + " -DskipTests` fetches it), or point -Drwml.apicurio.archive /"
                        + " RWML_APICURIO_ARCHIVE at the file.");
    }

    private static Path cacheDir() {
        final String explicit = setting("rwml.cache.dir", "RWML_CACHE_DIR");
        return explicit != null
                ? Path.of(explicit)
                : Path.of(System.getProperty("user.home"), ".cache", "rwml");
    }

    /**
     * Unpacks into a private sibling directory and renames it into place, so a concurrent JVM sees
     * either nothing or the whole distribution; the loser of a race discards its copy.
     */
    private static void unpack(final Path archive, final Path target) throws IOException {
        Files.createDirectories(target.getParent());
        final Path temp = target.resolveSibling(target.getFileName() + ".tmp-" + UUID.randomUUID());
        Files.createDirectories(temp);
        LOG.info("Unpacking {} into {}", archive, target);
        try {
            final Process tar =
                    new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", temp.toString())
                            .redirectErrorStream(true)
                            .start();
            final String output;
            try (InputStream in = tar.getInputStream()) {
                output = new String(in.readAllBytes());
            }
            if (!tar.waitFor(5, TimeUnit.MINUTES) || tar.exitValue() != 0) {
                tar.destroyForcibly();
                throw new IOException("Unpacking " + archive + " failed: " + output.strip());
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                LOG.debug("Another JVM unpacked {} first", target);
            } catch (IOException e) {
                if (!Files.isDirectory(target)) {
                    throw e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while unpacking " + archive, e);
        } finally {
            Directories.deleteRecursively(temp);
        }
    }

    private static String setting(final String property, final String env) {
        final String value = System.getProperty(property);
        return value != null && !value.isBlank() ? value : System.getenv(env);
    }

    private static Properties loadBuildProperties() {
        final Properties p = new Properties();
        try (InputStream in = ApicurioDistribution.class.getResourceAsStream("build.properties")) {
            if (in == null) {
                throw new IllegalStateException("build.properties missing from the classpath");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }
}
