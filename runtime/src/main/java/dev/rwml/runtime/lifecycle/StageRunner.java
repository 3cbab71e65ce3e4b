package dev.rwml.runtime.lifecycle;

import dev.rwml.runtime.errors.ErrorLine;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.runtime.settings.StageConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one stage as a process's main work, the same for every stage command: until SIGTERM or
 * SIGINT (exit {@value #EXIT_STOPPED}), or until the stage dies or the Kafka cluster stays
 * unreachable longer than the broker timeout, or refuses its login, ACLs or certificate (exit
 * {@value #EXIT_FAILED}, with the reason on stderr; for a refusal, what to grant or fix), so a
 * supervisor with {@code restart: on-failure} restarts exactly the stages that need it. The stage
 * is closed before the method returns.
 */
public final class StageRunner {

    /** Exit code after a requested stop (or a bounded input that was finished). */
    public static final int EXIT_STOPPED = 0;

    /** Exit code after the stage died; the reason is on stderr. */
    public static final int EXIT_FAILED = 1;

    private static final Logger LOG = LoggerFactory.getLogger(StageRunner.class);
    private static final Duration PROBE_EVERY = Duration.ofSeconds(5);

    private StageRunner() {}

    /** Runs {@code stage} with its settings' connection and broker timeout, reporting to stderr. */
    public static int run(final RunningStage stage, final StageConfig config) {
        return run(stage, config.connection(), config.brokerTimeout(), System.err);
    }

    /**
     * Runs {@code stage} until a stop signal, its own end, or a broker lost for {@code
     * brokerTimeout}; returns the exit code.
     */
    public static int run(
            final RunningStage stage,
            final Connection connection,
            final Duration brokerTimeout,
            final PrintStream err) {
        final CompletableFuture<String> signal = StopSignals.install();
        final CompletableFuture<Void> brokerLost = new CompletableFuture<>();
        final Thread watch =
                new Thread(
                        () -> watchBroker(connection, brokerTimeout, brokerLost),
                        "rwml-" + stage.name().id() + "-broker-watch");
        watch.setDaemon(true);
        watch.start();
        try {
            CompletableFuture.anyOf(signal, stage.termination(), brokerLost).join();
        } catch (RuntimeException e) {
            // One of them failed: reported below.
        } finally {
            watch.interrupt();
        }
        final boolean requested = signal.isDone();
        if (requested) {
            LOG.info("{} stage: {} received, stopping", stage.name(), signal.join());
        }
        stage.close();
        if (requested) {
            return EXIT_STOPPED;
        }
        final Throwable failure =
                failureOf(brokerLost).orElseGet(() -> failureOf(stage.termination()).orElse(null));
        if (failure == null) {
            return EXIT_STOPPED;
        }
        err.println(
                "rwml " + stage.name().command() + ": " + ErrorLine.of(failure, connection, null));
        LOG.info("{} stage failed", stage.name(), failure);
        return EXIT_FAILED;
    }

    private static Optional<Throwable> failureOf(final CompletableFuture<?> future) {
        if (!future.isCompletedExceptionally()) {
            return Optional.empty();
        }
        try {
            future.get();
            return Optional.empty();
        } catch (ExecutionException e) {
            return Optional.of(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (java.util.concurrent.CancellationException e) {
            return Optional.of(e);
        }
    }

    private static void watchBroker(
            final Connection connection,
            final Duration timeout,
            final CompletableFuture<Void> lost) {
        final Map<String, Object> config =
                connection.kafkaConfig(
                        Map.of(
                                AdminClientConfig.CLIENT_ID_CONFIG,
                                "rwml-broker-watch",
                                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                                (int) PROBE_EVERY.toMillis(),
                                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                                (int) PROBE_EVERY.toMillis()));
        try (Admin admin = Admin.create(config)) {
            long lastSeen = System.nanoTime();
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    admin.describeCluster(
                                    new DescribeClusterOptions()
                                            .timeoutMs((int) PROBE_EVERY.toMillis()))
                            .nodes()
                            .get(PROBE_EVERY.toMillis() * 2, TimeUnit.MILLISECONDS);
                    lastSeen = System.nanoTime();
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    if (ErrorPolicy.isAccessFailure(e)) {
                        // The broker answered and refused: no outage to wait out.
                        lost.completeExceptionally(
                                new StageFailedException(
                                        "Kafka at "
                                                + connection.bootstrapServers()
                                                + " refused this client: "
                                                + e.getMessage(),
                                        e));
                        return;
                    }
                    final Duration gone = Duration.ofNanos(System.nanoTime() - lastSeen);
                    LOG.warn(
                            "Kafka at {} unreachable for {} s (stopping after {} s)",
                            connection.bootstrapServers(),
                            gone.toSeconds(),
                            timeout.toSeconds());
                    if (gone.compareTo(timeout) >= 0) {
                        lost.completeExceptionally(
                                new StageFailedException(
                                        "cannot reach Kafka at "
                                                + connection.bootstrapServers()
                                                + " for "
                                                + gone.toSeconds()
                                                + " s; check the brokers, then start the stage"
                                                + " again (it resumes from its committed"
                                                + " offsets)",
                                        e));
                        return;
                    }
                }
                Thread.sleep(PROBE_EVERY.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
