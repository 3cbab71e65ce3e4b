package dev.rwml.env.tau2;

import dev.rwml.env.tau2.airline.AirlineDesk;
import dev.rwml.env.tau2.retail.RetailDesk;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Transitions per second of expert episodes on both domains, episode set-up included. */
class Tau2Benchmark {

    private static final Logger LOG = LoggerFactory.getLogger(Tau2Benchmark.class);

    private record Rate(String domain, double transitionsPerSecond, double episodesPerSecond) {}

    private static Rate measure(final String domain, final LongFunction<Tau2Desk> create) {
        for (long seed = 0; seed < 100; seed++) {
            ExpertRuns.play(create.apply(seed));
        }
        final long start = System.nanoTime();
        long transitions = 0;
        final int episodes = 1000;
        for (long seed = 0; seed < episodes; seed++) {
            transitions += ExpertRuns.play(create.apply(seed)).steps().size();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        return new Rate(domain, transitions / seconds, episodes / seconds);
    }

    @Test
    void expertTransitionsPerSecond() {
        final List<Rate> rates =
                List.of(
                        measure("retail", seed -> RetailDesk.create(Splits.TRAIN, seed)),
                        measure("airline", seed -> AirlineDesk.create(Splits.TRAIN, seed)));
        for (final Rate r : rates) {
            LOG.info(
                    "tau2 {} expert: {} transitions/s, {} episodes/s",
                    r.domain(),
                    Math.round(r.transitionsPerSecond()),
                    Math.round(r.episodesPerSecond()));
        }
        LOG.info(
                "tau2 airline/retail transition-rate ratio: {}",
                String.format(
                        "%.2f",
                        rates.get(1).transitionsPerSecond() / rates.get(0).transitionsPerSecond()));
    }
}
