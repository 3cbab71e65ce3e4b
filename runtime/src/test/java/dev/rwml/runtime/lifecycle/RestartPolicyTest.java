package dev.rwml.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.schemas.registry.RegistryUnreachableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class RestartPolicyTest {

    private static final RuntimeException BOOM = new IllegalStateException("boom");

    @Test
    void shouldRestartFaultsUpToTheLimitThenGiveUp() {
        final RestartPolicy policy = new RestartPolicy(2, Duration.ofMinutes(10), new TestClock());

        assertThat(policy.onCrash(BOOM).restart()).isTrue();
        assertThat(policy.onCrash(BOOM).restart()).isTrue();
        final RestartPolicy.Decision third = policy.onCrash(BOOM);
        assertThat(third.restart()).isFalse();
        assertThat(third.reason()).contains("2 restarts within PT10M");
    }

    @Test
    void shouldForgetRestartsOlderThanTheWindow() {
        final TestClock clock = new TestClock();
        final RestartPolicy policy = new RestartPolicy(1, Duration.ofMinutes(10), clock);

        assertThat(policy.onCrash(BOOM).restart()).isTrue();
        clock.millis = Duration.ofMinutes(11).toMillis();
        assertThat(policy.onCrash(BOOM).restart()).isTrue();
        assertThat(policy.onCrash(BOOM).restart()).isFalse();
    }

    @Test
    void shouldWaitOutOutagesWithGrowingBackoffWithoutCountingThem() {
        final RestartPolicy policy = new RestartPolicy(0, Duration.ofMinutes(10), new TestClock());
        final RuntimeException outage =
                new RuntimeException(
                        "decode",
                        new RegistryUnreachableException("http://registry:8081", 5, null));

        Duration previous = Duration.ZERO;
        for (int i = 0; i < 12; i++) {
            final RestartPolicy.Decision decision = policy.onCrash(outage);
            assertThat(decision.restart()).isTrue();
            assertThat(decision.delay()).isGreaterThanOrEqualTo(previous);
            assertThat(decision.delay()).isLessThanOrEqualTo(Duration.ofSeconds(30));
            previous = decision.delay();
        }
        assertThat(previous).isEqualTo(Duration.ofSeconds(30));
        assertThat(policy.onCrash(BOOM).restart()).isFalse();
    }

    @Test
    void shouldStopAtOnceWhenAccessIsRefused() {
        final RestartPolicy policy = new RestartPolicy(3, Duration.ofMinutes(10), new TestClock());

        final RestartPolicy.Decision decision =
                policy.onCrash(
                        new RuntimeException(
                                new org.apache.kafka.common.errors.TopicAuthorizationException(
                                        java.util.Set.of("rwml.transitions"))));

        assertThat(decision.restart()).isFalse();
        assertThat(decision.reason()).contains("access refused");
    }

    @Test
    void shouldStopAtOnceWhenTheSettingsCannotWork() {
        final RestartPolicy policy = new RestartPolicy(3, Duration.ofMinutes(10), new TestClock());

        final RestartPolicy.Decision decision =
                policy.onCrash(
                        new RuntimeException(
                                new dev.rwml.runtime.errors.UnfitSettingsException(
                                        "the first step needs 9 GiB, 1 GiB is free")));

        assertThat(decision.restart()).isFalse();
        assertThat(decision.reason()).contains("settings cannot work");
        assertThat(policy.onCrash(BOOM).restart()).as("other faults still restart").isTrue();
    }

    private static final class TestClock extends Clock {
        private long millis;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(final ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }
}
