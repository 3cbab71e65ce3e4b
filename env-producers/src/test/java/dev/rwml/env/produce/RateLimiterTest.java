package dev.rwml.env.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final List<Long> waits = new ArrayList<>();

    private RateLimiter limiter(final double rate) {
        return new RateLimiter(rate, now::get, (released, nanos) -> waits.add(nanos));
    }

    @Test
    void shouldSpacePermitsEvenlyWhenCallersComeAtOnce() throws Exception {
        final RateLimiter limiter = limiter(4);
        for (int i = 0; i < 4; i++) {
            limiter.acquire();
        }
        assertThat(waits).containsExactly(250_000_000L, 500_000_000L, 750_000_000L);
    }

    @Test
    void shouldNotAllowABurstAfterAnIdlePause() throws Exception {
        final RateLimiter limiter = limiter(10);
        limiter.acquire();
        now.addAndGet(5_000_000_000L);
        limiter.acquire();
        limiter.acquire();
        assertThat(waits).containsExactly(100_000_000L);
    }

    @Test
    void shouldLetEveryCallerThroughWhenReleased() throws Exception {
        final RateLimiter limiter = limiter(1);
        limiter.acquire();
        limiter.release();
        for (int i = 0; i < 100; i++) {
            limiter.acquire();
        }
        assertThat(waits).isEmpty();
    }

    @Test
    void shouldRejectANonPositiveRate() {
        assertThatThrownBy(() -> limiter(0)).hasMessageContaining("positive number");
        assertThatThrownBy(() -> limiter(Double.NaN)).hasMessageContaining("positive number");
    }
}
