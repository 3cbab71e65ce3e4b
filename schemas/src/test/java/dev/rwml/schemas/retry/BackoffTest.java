package dev.rwml.schemas.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void shouldDoubleTheWaitUpToTheCapAndStartOverAfterASuccess() {
        final Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(2));
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(4));
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(8));
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(16));
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(30));
        for (int i = 0; i < 100; i++) {
            assertThat(b.next()).isEqualTo(Duration.ofSeconds(30));
        }
        assertThat(b.attempts()).isEqualTo(106);

        b.reset();
        assertThat(b.attempts()).isZero();
        assertThat(b.next()).isEqualTo(Duration.ofSeconds(1));
    }
}
