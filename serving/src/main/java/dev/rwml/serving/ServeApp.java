package dev.rwml.serving;

import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelFollower;
import dev.rwml.runtime.lifecycle.StopSignals;
import dev.rwml.worldmodel.artifact.ArtifactRejectedException;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.ModelLoader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts {@code rwml serve}: the run's versions from its models topic (the follower the prediction
 * stage uses, with the same verification; or the one version pinned, read and verified once), and
 * the HTTP server answering with the newest loaded version.
 */
public final class ServeApp {

    private static final Logger LOG = LoggerFactory.getLogger(ServeApp.class);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    /** A running server and what feeds it; closing stops them in reverse order. */
    public static final class Running implements AutoCloseable {
        private final ServeServer server;
        private final ServedModel models;
        private final Optional<ModelFollower> follower;
        private final ModelChannel channel;
        private final ModelLoader loader;

        private Running(
                final ServeServer server,
                final ServedModel models,
                final Optional<ModelFollower> follower,
                final ModelChannel channel,
                final ModelLoader loader) {
            this.server = server;
            this.models = models;
            this.follower = follower;
            this.channel = channel;
            this.loader = loader;
        }

        /** The address of {@code path} on the server. */
        public URI uri(final String path) {
            return server.uri(path);
        }

        /** The newest version loaded, -1 before the first. */
        public long version() {
            return models.version();
        }

        @Override
        public void close() {
            server.close();
            follower.ifPresent(ModelFollower::close);
            models.close();
            loader.close();
            channel.close();
        }
    }

    private ServeApp() {}

    /**
     * Starts serving: a pinned version is loaded before the server opens (and a missing or corrupt
     * one fails here); otherwise the server opens at once and answers 503 until version 0 arrives.
     */
    public static Running start(
            final ServeConfig config,
            final MeterRegistry registry,
            final Supplier<String> scrape,
            final ModelLoader loader) {
        final ModelChannel channel = ModelChannel.of(config.connection(), config.run());
        final ServedModel models = new ServedModel();
        Optional<ModelFollower> follower = Optional.empty();
        try {
            if (config.version().isPresent()) {
                loadPinned(channel, config.version().getAsLong(), models, loader);
            } else {
                follower =
                        Optional.of(
                                ModelFollower.start(
                                        channel,
                                        Optional.empty(),
                                        (artifact, versions) ->
                                                models.offer(loader.load(artifact, versions)),
                                        Duration.ofMillis(500),
                                        Optional.empty()));
            }
            final ServeServer server =
                    ServeServer.start(
                            config.run(),
                            config.host(),
                            config.port(),
                            models,
                            config.limits(),
                            config.apiKey(),
                            registry,
                            scrape);
            return new Running(server, models, follower, channel, loader);
        } catch (final RuntimeException e) {
            follower.ifPresent(ModelFollower::close);
            models.close();
            channel.close();
            throw e;
        }
    }

    private static void loadPinned(
            final ModelChannel channel,
            final long version,
            final ServedModel models,
            final ModelLoader loader) {
        try (ModelChannelReader reader =
                new ModelChannelReader(channel, Optional.empty(), READ_TIMEOUT)) {
            models.offer(loader.load(reader.fetch(version), reader));
        } catch (final ArtifactRejectedException e) {
            throw new IllegalStateException(
                    "cannot serve version " + version + ": " + e.getMessage(), e);
        }
    }

    /**
     * Serves until SIGTERM or SIGINT (exit 0), printing the address on {@code out}; the meters are
     * served at {@code /metrics}.
     */
    public static int run(final ServeConfig config, final PrintWriter out) {
        LOG.info("rwml serve of run {}: {}", config.run(), config.runtime().apply());
        final PrometheusMeterRegistry registry =
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (Running running =
                start(config, registry, registry::scrape, CheckpointModelLoader.standard())) {
            out.println(
                    "rwml serve: run "
                            + config.run()
                            + (config.version().isPresent()
                                    ? " version " + config.version().getAsLong()
                                    : " (following its latest version)")
                            + " at "
                            + running.uri("/v1"));
            out.flush();
            final String signal = StopSignals.install().join();
            LOG.info("rwml serve: {} received, stopping", signal);
        } finally {
            registry.close();
        }
        return 0;
    }
}
