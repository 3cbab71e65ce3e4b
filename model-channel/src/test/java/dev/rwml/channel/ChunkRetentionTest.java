package dev.rwml.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.ModelVersion;
import dev.rwml.worldmodel.artifact.ChannelFixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChunkRetentionTest {

    private static List<ModelVersion> versions(final int count) {
        final List<ModelVersion> all = new ArrayList<>();
        for (int v = 0; v < count; v++) {
            all.add(ChannelFixtures.published("r", v, 2));
        }
        return all;
    }

    @Test
    void shouldRetireNothingWhileTheWindowIsNotFull() {
        final ChunkRetention retention = new ChunkRetention(3);
        assertThat(retention.toRetire(versions(2))).isEmpty();
    }

    @Test
    void shouldNeverRetireVersionZeroBecauseItIsTheReference() {
        final ChunkRetention retention = new ChunkRetention(3);
        assertThat(retention.toRetire(versions(3))).isEmpty();
    }

    @Test
    void shouldRetireExactlyTheVersionLeavingTheWindowOnEachPublish() {
        final ChunkRetention retention = new ChunkRetention(2);
        final List<Long> retired = new ArrayList<>();
        for (int published = 1; published <= 6; published++) {
            retention
                    .toRetire(versions(published))
                    .map(ModelVersion::getVersion)
                    .ifPresent(retired::add);
        }
        // Publishing v1..v6 with keepLast 2: v1 leaves when v3 is published, ... v4 when v6 is.
        assertThat(retired).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void shouldSkipVersionsStoredAtAUriBecauseTheyHaveNoChunks() {
        final List<ModelVersion> all = versions(3);
        all.set(1, ChannelFixtures.published("r", 1, 0));
        assertThat(new ChunkRetention(1).toRetire(all.subList(0, 2))).isEqualTo(Optional.empty());
    }

    @Test
    void shouldRejectAWindowThatWouldPruneTheLatestVersion() {
        assertThatThrownBy(() -> new ChunkRetention(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("latest");
    }
}
