package dev.rwml.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldSumACounterOverItsOtherTagsForOneRun() {
        registry.counter("rwml.reward.dead.letters", "run", "a", "reason", "PROCESSING")
                .increment(2);
        registry.counter("rwml.reward.dead.letters", "run", "a", "reason", "WRONG_MAGIC_BYTE")
                .increment();
        registry.counter("rwml.reward.dead.letters", "run", "b", "reason", "PROCESSING")
                .increment(5);

        assertThat(Meters.total(registry, "rwml.reward.dead.letters", "a")).isEqualTo(3);
    }

    @Test
    void shouldCountZeroBeforeTheCounterIsRegistered() {
        assertThat(Meters.total(registry, "rwml.reward.dead.letters", "a")).isZero();
    }

    @Test
    void shouldAddFunctionCountersToWhatASearchFinds() {
        final AtomicLong loads = new AtomicLong(4);
        FunctionCounter.builder("rwml.x", loads, AtomicLong::get)
                .tags("run", "a", "reason", "kept")
                .register(registry);
        registry.counter("rwml.x", "run", "a", "reason", "after-stop").increment(7);
        registry.counter("rwml.x", "run", "a", "reason", "env").increment();

        assertThat(
                        Meters.total(
                                registry.find("rwml.x")
                                        .tag("reason", r -> !r.equals("after-stop"))))
                .isEqualTo(5);
    }
}
