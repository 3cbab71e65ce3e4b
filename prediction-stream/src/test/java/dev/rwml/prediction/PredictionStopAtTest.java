package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PredictionStopAtTest {

    private static PredictionConfig config(final String stopAt) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("run", "r");
        m.put("bootstrap.servers", "localhost:9092");
        m.put("schema.registry.url", "mock://stop-at");
        if (stopAt != null) {
            m.put("stop.at", stopAt);
        }
        return PredictionConfig.fromMap(m);
    }

    @Test
    void shouldSkipOffsetsAtOrAfterTheStopOfTheirPartitionOnly() {
        final PredictionConfig c = config("0:120, 1:98");
        assertThat(c.pastStop(0, 119)).isFalse();
        assertThat(c.pastStop(0, 120)).isTrue();
        assertThat(c.pastStop(1, 98)).isTrue();
        assertThat(c.pastStop(2, 1_000_000)).as("a partition not named has no end").isFalse();
    }

    @Test
    void shouldReadEverythingWhenNoStopIsSet() {
        assertThat(config(null).pastStop(0, Long.MAX_VALUE - 1)).isFalse();
    }

    @Test
    void shouldRoundTripTheStopThroughTheSettingsMap() {
        final PredictionConfig c = config("1:5,0:7");
        assertThat(c.stopAt().offsets()).isEqualTo(Map.of(0, 7L, 1, 5L));
        assertThat(PredictionConfig.fromMap(c.toMap())).isEqualTo(c);
    }

    @Test
    void shouldExplainTheFormatWhenTheStopIsMalformed() {
        assertThatThrownBy(() -> config("0=120"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition:offset");
    }
}
