package dev.rwml.env.produce;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The event-time clock of one episode: episode {@code n} starts at {@code base + n minutes} and
 * each reading advances one second, so event times depend only on (base, episode number, step) and
 * not on which thread ran the episode or when.
 *
 * <p>Steps stay inside their episode's minute for episodes of up to 60 steps (every environment
 * here caps episodes at 50), so event times also grow with the episode number.
 */
public final class EpisodeClock extends Clock {

    /** The gap between the start times of consecutive episodes. */
    public static final Duration EPISODE_SPACING = Duration.ofMinutes(1);

    /** The gap between consecutive steps of an episode. */
    public static final Duration STEP = Duration.ofSeconds(1);

    private final Instant start;
    private final AtomicLong readings = new AtomicLong();

    private EpisodeClock(final Instant start) {
        this.start = start;
    }

    /** The clock of episode {@code n} of a run that starts at {@code base}. */
    public static EpisodeClock forEpisode(final Instant base, final long n) {
        return new EpisodeClock(base.plus(EPISODE_SPACING.multipliedBy(n)));
    }

    @Override
    public Instant instant() {
        return start.plus(STEP.multipliedBy(readings.getAndIncrement()));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(final ZoneId zone) {
        throw new UnsupportedOperationException("episode clocks are always UTC");
    }
}
