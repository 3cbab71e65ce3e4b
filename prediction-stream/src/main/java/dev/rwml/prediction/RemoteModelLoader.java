package dev.rwml.prediction;

import dev.rwml.schemas.retry.Backoff;
import dev.rwml.worldmodel.ModelFormat;
import dev.rwml.worldmodel.artifact.ArtifactSource;
import dev.rwml.worldmodel.artifact.VerifiedArtifact;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.LoraCheckpoint;
import dev.rwml.worldmodel.serve.CheckpointModelLoader;
import dev.rwml.worldmodel.serve.ModelLoader;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads each version of the run for {@code sampler=remote}: locally, for its tokenizer and prompt
 * format (the stage still holds the version's weights), and on the server. A LoRA version's adapter
 * is written in PEFT format to {@code sampler.adapter.dir/<run>-v<N>/} and loaded with {@code POST
 * /v1/load_lora_adapter} as {@code <run>-v<N>}; it is unloaded and its directory deleted once no
 * batch uses it. While the server is out, loading is retried with backoff and the current version
 * keeps sampling.
 */
final class RemoteModelLoader implements ModelLoader {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteModelLoader.class);

    private final String run;
    private final RemoteSamplerSettings settings;
    private final RemoteSamplerClient client;
    private final CheckpointModelLoader local;
    private volatile boolean closed;

    RemoteModelLoader(
            final String run,
            final RemoteSamplerSettings settings,
            final CheckpointModelLoader local) {
        this.run = run;
        this.settings = settings;
        this.client = new RemoteSamplerClient(settings);
        this.local = local;
    }

    @Override
    public PredictionModel load(final VerifiedArtifact artifact, final ArtifactSource versions) {
        final PredictionModel loaded = local.load(artifact, versions);
        if (!(loaded instanceof WorldModelPredictor predictor)) {
            loaded.close();
            throw new IllegalStateException(
                    "version " + artifact.version() + " did not load as a world-model predictor");
        }
        try {
            return switch (ModelFormat.of(artifact.bytes())) {
                case LORA -> adapter(predictor, LoraCheckpoint.fromBytes(artifact.bytes()));
                case HF ->
                        new RemotePredictionModel(
                                predictor,
                                client,
                                run,
                                settings.model(),
                                HfCheckpoint.fromBytes(artifact.bytes()).lora().isPresent()
                                        ? RemotePredictionModel.Served.BASE
                                        : RemotePredictionModel.Served.RUN,
                                () -> {});
                case SMALL ->
                        new RemotePredictionModel(
                                predictor,
                                client,
                                run,
                                settings.model(),
                                RemotePredictionModel.Served.RUN,
                                () -> {});
            };
        } catch (final RuntimeException e) {
            predictor.close();
            throw e;
        }
    }

    private PredictionModel adapter(
            final WorldModelPredictor predictor, final LoraCheckpoint lora) {
        final Path root =
                settings.adapterDir()
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "version "
                                                        + lora.version()
                                                        + " is a LoRA adapter: set"
                                                        + " sampler.adapter.dir to a directory the"
                                                        + " inference server reads"));
        final String name = run + "-v" + predictor.version();
        final Path dir = root.resolve(name).toAbsolutePath();
        lora.writePeftDirectory(dir);
        loadWithRetries(name, dir);
        LOG.info(
                "Run {}: version {} loaded into {} as {}",
                run,
                lora.version(),
                client.server(),
                name);
        return new RemotePredictionModel(
                predictor,
                client,
                run,
                name,
                RemotePredictionModel.Served.ADAPTER,
                () -> unload(name, dir));
    }

    private void loadWithRetries(final String name, final Path dir) {
        final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        while (true) {
            try {
                client.loadAdapter(name, dir.toString());
                return;
            } catch (final SamplerException e) {
                if (e.httpStatus() == 400 && e.getMessage().contains("already")) {
                    // loaded before a restart of the stage: the server holds these very files
                    return;
                }
                if (!e.isRetriable() || closed) {
                    throw e;
                }
                final Duration wait = backoff.next();
                LOG.warn(
                        "Run {}: cannot load adapter {} yet ({}); retrying in {}",
                        run,
                        name,
                        e.getMessage(),
                        wait);
                try {
                    Thread.sleep(wait.toMillis());
                } catch (final InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private void unload(final String name, final Path dir) {
        try {
            client.unloadAdapter(name);
        } catch (final SamplerException e) {
            LOG.warn(
                    "Run {}: could not unload adapter {} ({}); the server keeps it",
                    run,
                    name,
                    e.getMessage());
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        } catch (final IOException | UncheckedIOException e) {
            LOG.warn("Run {}: could not delete {} ({})", run, dir, e.toString());
        }
    }

    @Override
    public void close() {
        closed = true;
        local.close();
    }
}
