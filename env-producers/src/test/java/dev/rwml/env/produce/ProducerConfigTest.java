package dev.rwml.env.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.env.EnvKind;
import dev.rwml.runtime.settings.Connection;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProducerConfigTest {

    private static final KafkaSettings KAFKA =
            KafkaSettings.of(Connection.of("localhost:9092", "mock://cfg"));

    @Test
    void shouldNameTheValidSplitsWhenTheSplitIsUnknown() {
        assertThatThrownBy(
                        () -> ProducerConfig.builder(EnvKind.ALFWORLD, KAFKA).split("test").build())
                .hasMessageContaining("train, valid_seen, valid_unseen");
        assertThatThrownBy(() -> ProducerConfig.builder(EnvKind.RETAIL, KAFKA).split("dev").build())
                .hasMessageContaining("use 'train' or 'test'");
    }

    @Test
    void shouldRejectImpossibleCountsAndRates() {
        assertThatThrownBy(() -> ProducerConfig.builder(EnvKind.RETAIL, KAFKA).agents(0).build())
                .hasMessageContaining("agents must be at least 1");
        assertThatThrownBy(() -> ProducerConfig.builder(EnvKind.RETAIL, KAFKA).rate(-1).build())
                .hasMessageContaining("positive number of transitions per second");
        assertThatThrownBy(() -> ProducerConfig.builder(EnvKind.RETAIL, KAFKA).epsilon(1.5).build())
                .hasMessageContaining("epsilon must be in [0, 1]");
        assertThatThrownBy(() -> KafkaSettings.of(Connection.of(" ", "mock://x")))
                .hasMessageContaining("bootstrap.servers is required");
    }

    @Test
    void shouldSpreadEpisodesRoundRobinOverAgents() {
        final ProducerConfig config =
                ProducerConfig.builder(EnvKind.AIRLINE, KAFKA).agents(3).build();
        assertThat(new int[] {0, 1, 2, 3, 4, 7})
                .satisfies(
                        ns -> {
                            for (final int n : ns) {
                                assertThat(config.agentOf(n)).isEqualTo(n % 3);
                            }
                        });
    }

    @Test
    void shouldGiveEachEpisodeItsOwnMinuteOfEventTimes() {
        final Instant base = Instant.parse("2026-01-01T00:00:00Z");
        final EpisodeClock third = EpisodeClock.forEpisode(base, 3);
        assertThat(third.instant()).isEqualTo(base.plusSeconds(180));
        assertThat(third.instant()).isEqualTo(base.plusSeconds(181));
        assertThat(EpisodeClock.forEpisode(base, 3).instant()).isEqualTo(base.plusSeconds(180));
    }

    @Test
    void shouldParseEnvironmentNamesCaseInsensitively() {
        assertThat(EnvKind.of(" AlfWorld ")).isEqualTo(EnvKind.ALFWORLD);
        assertThatThrownBy(() -> EnvKind.of("webshop"))
                .hasMessageContaining("use one of alfworld, retail, airline");
    }
}
