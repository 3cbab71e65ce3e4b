package dev.rwml.worldmodel.artifact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.ArtifactRef;
import dev.rwml.events.ModelVersion;
import org.junit.jupiter.api.Test;

class VerifiedArtifactTest {

    private static ModelVersion manifestFor(final byte[] bytes, final String sha) {
        return ChannelFixtures.manifest("r", 3)
                .setArtifact(
                        ArtifactRef.newBuilder()
                                .setFormat("test")
                                .setSizeBytes(bytes.length)
                                .setSha256(sha)
                                .setChunkCount(1)
                                .build())
                .build();
    }

    @Test
    void shouldAcceptBytesMatchingSizeAndSha() throws Exception {
        final byte[] bytes = ChannelFixtures.artifact(1000, 1);
        final VerifiedArtifact a =
                VerifiedArtifact.verify(manifestFor(bytes, Artifacts.sha256Hex(bytes)), bytes);
        assertThat(a.version()).isEqualTo(3);
        assertThat(a.bytes()).isEqualTo(bytes);
    }

    @Test
    void shouldRejectBytesWhoseShaDiffersFromTheManifest() {
        final byte[] bytes = ChannelFixtures.artifact(1000, 1);
        final String otherSha = Artifacts.sha256Hex(ChannelFixtures.artifact(1000, 2));
        assertThatThrownBy(() -> VerifiedArtifact.verify(manifestFor(bytes, otherSha), bytes))
                .isInstanceOf(ArtifactRejectedException.class)
                .hasMessageContaining("SHA-256")
                .hasMessageContaining("version 3 of run 'r'");
    }

    @Test
    void shouldRejectTruncatedBytes() {
        final byte[] bytes = ChannelFixtures.artifact(1000, 1);
        final ModelVersion m = manifestFor(bytes, Artifacts.sha256Hex(bytes));
        assertThatThrownBy(() -> VerifiedArtifact.verify(m, java.util.Arrays.copyOf(bytes, 999)))
                .isInstanceOf(ArtifactRejectedException.class)
                .hasMessageContaining("size is 999 bytes, manifest says 1000");
    }

    @Test
    void shouldHashKnownVectorLikeSha256sum() {
        assertThat(Artifacts.sha256Hex("abc".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
