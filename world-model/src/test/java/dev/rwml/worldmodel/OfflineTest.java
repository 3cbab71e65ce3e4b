package dev.rwml.worldmodel;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.util.Utils;
import dev.rwml.worldmodel.generate.SamplingParams;
import java.io.IOException;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OfflineTest {

    @Test
    void shouldRunTheWholeModelWithoutOpeningAnyConnection(@TempDir final Path cache)
            throws IOException {
        assertThat(Utils.isOfflineMode()).as("-Dai.djl.offline=true from the build").isTrue();
        final ProxySelector previous = ProxySelector.getDefault();
        final List<URI> attempts = new CopyOnWriteArrayList<>();
        // every java.net connection asks the default selector first: record and refuse them all
        ProxySelector.setDefault(
                new ProxySelector() {
                    @Override
                    public List<Proxy> select(final URI uri) {
                        attempts.add(uri);
                        throw new IllegalStateException("network access attempted: " + uri);
                    }

                    @Override
                    public void connectFailed(
                            final URI uri, final SocketAddress sa, final IOException e) {}
                });
        final String cacheDir = System.getProperty("DJL_CACHE_DIR");
        System.setProperty("DJL_CACHE_DIR", cache.toString());
        try (WorldModel model = WorldModel.create(Fixtures.tiny(), Fixtures.TOKENIZER_JSON, 9)) {
            model.generator()
                    .generate(
                            List.of(model.tokenizer().encode("a room")),
                            2,
                            new SamplingParams(1f, 1f, 4, 1));
            try (var trainer =
                    model.trainer(dev.rwml.worldmodel.train.TrainConfig.grpo(1e-3), null, null)) {
                assertThat(trainer.sftStep(Fixtures.examples(model, 1)).loss()).isFinite();
            }
        } finally {
            ProxySelector.setDefault(previous);
            if (cacheDir == null) {
                System.clearProperty("DJL_CACHE_DIR");
            } else {
                System.setProperty("DJL_CACHE_DIR", cacheDir);
            }
        }
        assertThat(attempts).isEmpty();
        final List<Path> downloaded = new ArrayList<>();
        try (var files = Files.walk(cache)) {
            files.filter(Files::isRegularFile).forEach(downloaded::add);
        }
        assertThat(downloaded).as("nothing downloaded into the DJL cache").isEmpty();
    }
}
