package dev.rwml.env.produce;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.PolicyKind;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.settings.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transitions per second from the environments alone (episode runner, no Kafka) against the same
 * episodes published end to end (serde, registry, idempotent acks=all producer), for N = 1, 2, 4.
 */
class ProducerBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(ProducerBenchmark.class);
    private static final int EPISODES = 120;

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    @Test
    void shouldPrintEnvironmentAndEndToEndThroughput() throws Exception {
        final StringBuilder table =
                new StringBuilder("\nenv       N  env-only/s  published/s  ratio\n");
        for (final EnvKind env : List.of(EnvKind.ALFWORLD, EnvKind.RETAIL)) {
            for (final int agents : new int[] {1, 2, 4}) {
                final ProducerConfig config =
                        ProducerConfig.builder(
                                        env,
                                        KafkaSettings.of(
                                                Connection.of(
                                                        KAFKA.bootstrapServers(),
                                                        KAFKA.schemaRegistryUrl())))
                                .agents(agents)
                                .episodes(EPISODES)
                                .seed(7_000 + agents)
                                .policy(PolicyKind.EPSILON)
                                .build();
                final double alone = environmentsOnly(config);
                final ProducerResult published = TransitionProducer.run(config);
                table.append(
                        String.format(
                                Locale.ROOT,
                                "%-9s %d  %10.0f  %11.0f  %5.2f%n",
                                env.id(),
                                agents,
                                alone,
                                published.transitionsPerSecond(),
                                published.transitionsPerSecond() / alone));
            }
        }
        LOG.info("{}", table);
    }

    /** The same episodes on N threads with the runner alone: transitions per second. */
    private static double environmentsOnly(final ProducerConfig config) throws Exception {
        final EnvironmentSource source = config.env().source(config.split(), config.grammar());
        final ExecutorService pool = Executors.newFixedThreadPool(config.agents());
        try {
            final long start = System.nanoTime();
            final List<Future<Integer>> counts = new ArrayList<>();
            for (int a = 0; a < config.agents(); a++) {
                final int agent = a;
                counts.add(
                        pool.submit(
                                () -> {
                                    int count = 0;
                                    for (int n = agent;
                                            n < config.episodes();
                                            n += config.agents()) {
                                        count +=
                                                new EpisodeRunner(
                                                                config.historyTurns(),
                                                                EpisodeRunner.DEFAULT_MAX_STEPS,
                                                                EpisodeClock.forEpisode(
                                                                        config.baseTime(), n))
                                                        .run(
                                                                source,
                                                                config.policy()
                                                                        .agent(
                                                                                config.epsilon(),
                                                                                config
                                                                                        .invalidRate()),
                                                                "agent-" + agent,
                                                                config.seed(),
                                                                n)
                                                        .size();
                                    }
                                    return count;
                                }));
            }
            long total = 0;
            for (final Future<Integer> count : counts) {
                total += count.get();
            }
            return total / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdownNow();
        }
    }
}
