package dev.rwml.env.alfworld;

import dev.rwml.env.Agent;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.agent.ExpertAgent;
import dev.rwml.env.agent.RandomAgent;
import dev.rwml.events.Transition;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Transitions per second from the ALFWorld environments alone (no Kafka): the raw environment loop
 * and the episode runner that builds Transition records, for the expert and random agents.
 */
class AlfworldBenchmark {

    private static final int WARMUP_EPISODES = 200;
    private static final int EPISODES = 2_000;

    @Test
    void printTransitionsPerSecond() {
        final EnvironmentSource source = AlfworldGames.source(Split.TRAIN, Grammar.CURRENT);
        final EpisodeRunner runner =
                EpisodeRunner.withClock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
        // Round one only warms the JIT for all four loops; round two is reported.
        double rawExpert = 0;
        double rawRandom = 0;
        double runExpert = 0;
        double runRandom = 0;
        for (int round = 0; round < 2; round++) {
            rawExpert = rawLoop(new ExpertAgent());
            rawRandom = rawLoop(new RandomAgent());
            runExpert = runnerLoop(runner, source, new ExpertAgent());
            runRandom = runnerLoop(runner, source, new RandomAgent());
        }
        print("environment loop, expert agent", rawExpert, rawExpert);
        print("environment loop, random agent", rawRandom, rawExpert);
        print("episode runner (Transition records), expert", runExpert, rawExpert);
        print("episode runner (Transition records), random", runRandom, rawExpert);
    }

    private static double rawLoop(final Agent agent) {
        loop(agent, WARMUP_EPISODES, 1_000_000);
        final long start = System.nanoTime();
        final long steps = loop(agent, EPISODES, 0);
        return steps / ((System.nanoTime() - start) / 1e9);
    }

    private static long loop(final Agent agent, final int episodes, final long seedBase) {
        long steps = 0;
        for (int i = 0; i < episodes; i++) {
            final AlfworldEnvironment env =
                    AlfworldGames.create(Split.TRAIN, seedBase + i, Grammar.CURRENT);
            final SplittableRandom rng = new SplittableRandom(i);
            while (!env.done()) {
                env.step(agent.act(env, List.of(), rng).action());
                steps++;
            }
        }
        return steps;
    }

    private static double runnerLoop(
            final EpisodeRunner runner, final EnvironmentSource source, final Agent agent) {
        for (int i = 0; i < WARMUP_EPISODES; i++) {
            runner.run(source, agent, "bench", 1_000_000 + i, 0);
        }
        final long start = System.nanoTime();
        long records = 0;
        for (int i = 0; i < EPISODES; i++) {
            final List<Transition> episode = runner.run(source, agent, "bench", i, 0);
            records += episode.size();
        }
        return records / ((System.nanoTime() - start) / 1e9);
    }

    private static void print(final String what, final double perSecond, final double baseline) {
        System.out.printf(
                Locale.ROOT,
                "AlfworldBenchmark %-46s %,12.0f transitions/s  (x%.2f of raw expert loop)%n",
                what,
                perSecond,
                perSecond / baseline);
    }
}
