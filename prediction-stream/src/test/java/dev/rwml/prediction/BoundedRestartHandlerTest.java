package dev.rwml.prediction;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class BoundedRestartHandlerTest {

    private static final RuntimeException BOOM = new IllegalStateException("boom");

    @Test
    void shouldReplaceThreadsUpToTheLimitThenShutDownTheClient() {
        final BoundedRestartHandler handler =
                new BoundedRestartHandler(2, Duration.ofMinutes(10), fixed(0));

        assertThat(handler.handle(BOOM)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(handler.handle(BOOM)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(handler.handle(BOOM)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    @Test
    void shouldForgetRestartsOlderThanTheWindow() {
        final MutableClock clock = new MutableClock();
        final BoundedRestartHandler handler =
                new BoundedRestartHandler(1, Duration.ofMinutes(10), clock);

        assertThat(handler.handle(BOOM)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        clock.millis = Duration.ofMinutes(11).toMillis();
        assertThat(handler.handle(BOOM)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    private static Clock fixed(final long millis) {
        return Clock.fixed(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    private static final class MutableClock extends Clock {
        private long millis;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(final java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }
}
