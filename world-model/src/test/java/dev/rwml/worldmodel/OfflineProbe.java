package dev.rwml.worldmodel;

import dev.rwml.worldmodel.generate.SamplingParams;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.io.IOException;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The child JVM of {@link OfflineTest}: refuses and records every java.net connection from its
 * first instruction, starts the engine, samples and trains a tiny model, and writes the attempted
 * URIs (one a line) to the file named by its argument.
 */
public final class OfflineProbe {

    private OfflineProbe() {}

    public static void main(final String[] args) throws IOException {
        final List<String> attempts = new CopyOnWriteArrayList<>();
        // every java.net connection asks the default selector first, DJL's telemetry included
        ProxySelector.setDefault(
                new ProxySelector() {
                    @Override
                    public List<Proxy> select(final URI uri) {
                        attempts.add(uri.toString());
                        throw new IllegalStateException("network access attempted: " + uri);
                    }

                    @Override
                    public void connectFailed(
                            final URI uri, final SocketAddress sa, final IOException e) {}
                });
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 9)) {
            model.generator()
                    .generate(
                            List.of(model.tokenizer().encode("a room")),
                            2,
                            new SamplingParams(1f, 1f, 4, 1));
            try (Trainer trainer = model.trainer(TrainConfig.grpo(1e-3), null, null)) {
                if (!Double.isFinite(trainer.sftStep(Fixtures.examples(model, 1)).loss())) {
                    throw new IllegalStateException("the SFT step gave a non-finite loss");
                }
            }
        }
        Files.write(Path.of(args[0]), attempts);
    }
}
