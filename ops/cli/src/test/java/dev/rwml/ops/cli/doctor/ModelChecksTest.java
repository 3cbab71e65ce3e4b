package dev.rwml.ops.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.scoring.EmbeddingSettings;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelChecksTest {

    @Test
    void shouldSayWhichSettingsToCheckWhenTheEmbeddingServerIsDown() throws IOException {
        final int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        final Finding finding =
                ModelChecks.embedding(
                        new EmbeddingSettings(
                                EmbeddingSettings.OPENAI,
                                "http://127.0.0.1:" + port,
                                "Qwen/Qwen3-Embedding-8B",
                                "",
                                Duration.ofSeconds(2),
                                0),
                        Map.of());
        assertThat(finding.ok()).isFalse();
        assertThat(finding.message())
                .startsWith("the openai embedding model could not embed a text")
                .endsWith("check embedding.url and embedding.model");
    }
}
