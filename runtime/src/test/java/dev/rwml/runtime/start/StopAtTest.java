package dev.rwml.runtime.start;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class StopAtTest {

    @Test
    void shouldStopEachNamedPartitionAtItsOffsetOnly() {
        final StopAt stop = StopAt.parse(" 1:98, 0:120");
        assertThat(stop.isPast(0, 119)).isFalse();
        assertThat(stop.isPast(0, 120)).isTrue();
        assertThat(stop.isPast(1, 98)).isTrue();
        assertThat(stop.isPast(2, Long.MAX_VALUE - 1)).as("a partition not named").isFalse();
        assertThat(stop.text()).isEqualTo("0:120,1:98");
        assertThat(StopAt.parse(stop.text())).isEqualTo(stop);
    }

    @Test
    void shouldHaveNoEndWhenBlank() {
        assertThat(StopAt.parse(" ")).isEqualTo(StopAt.NONE);
        assertThat(StopAt.NONE.isPast(0, Long.MAX_VALUE - 1)).isFalse();
        assertThat(new StopAt(Map.of()).text()).isEmpty();
    }

    @Test
    void shouldExplainTheFormat() {
        assertThatThrownBy(() -> StopAt.parse("0=120"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("partition:offset");
        assertThatThrownBy(() -> StopAt.parse("0:-1")).isInstanceOf(ConfigException.class);
    }
}
