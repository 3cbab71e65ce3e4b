package dev.rwml.evaluation;

import dev.rwml.channel.ModelSlot;
import dev.rwml.env.Agent;
import dev.rwml.env.EnvKind;
import dev.rwml.env.Environment;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import dev.rwml.worldmodel.BaseModelTrainer;
import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The model agent's speed beside its two parts, in one run: steps/s of {@link ModelAgent} playing
 * ALFWorld valid_unseen episodes (one answer per step, at temperature 0 so every arm samples the
 * same tokens), the generator alone on the very prompts the agent built (one prompt per call, as
 * the agent sends them), and the environment alone replaying the agent's actions. The agent's cost
 * beyond the two is its prompt building and answer parsing; the goal is at least 0.8 of the
 * generator's rate. The small model, taught both roles by a short {@code model init --acting} (its
 * answers' lengths, not its skill, set the generator's time). Run with {@code mvn -B -o -Pbench -pl
 * evaluation test -Dtest=AgentBenchmark}.
 */
class AgentBenchmark {

    private static final int EPISODES = Integer.getInteger("bench.episodes", 6);
    private static final int STEPS = Integer.getInteger("bench.init.steps", 150);
    private static final SamplingSettings GREEDY = new SamplingSettings(1, 0f, 1f, 24);
    private static final Clock CLOCK = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);

    @Test
    void agentBesideTheGeneratorAndTheEnvironmentAlone() {
        final EnvironmentSource train = EnvKind.ALFWORLD.source("train", Grammar.CURRENT);
        final EnvironmentSource unseen = EnvKind.ALFWORLD.source("valid_unseen", Grammar.CURRENT);
        final EpisodeRunner runner = EpisodeRunner.withClock(CLOCK);
        final List<Transition> slice = new ArrayList<>();
        for (int n = 0; n < 20; n++) {
            slice.addAll(runner.run(train, new EpsilonExpertAgent(0.1, 0.1), "a", 1, n));
        }
        final BaseModelTrainer.Result trained =
                new BaseModelTrainer()
                        .train(
                                slice,
                                BaseModelTrainer.Settings.of("small", STEPS, 1).withActing(true),
                                (m, total) -> {});
        try (WorldModel world = WorldModel.load(trained.checkpoint());
                ModelSlot slot = new ModelSlot()) {
            final PredictionModel model =
                    new WorldModelPredictor(
                            1, world.model(), world.tokenizer(), PromptFormat.standard());
            slot.install(model);
            final ModelAgent agent = new ModelAgent(slot, GREEDY, 512);
            // Warm-up: one episode of each arm's work.
            runner.run(unseen, agent, "warm", 99, 0);

            final List<EpisodeRunner.Episode> played = new ArrayList<>();
            long started = System.nanoTime();
            for (int n = 0; n < EPISODES; n++) {
                played.add(runner.run(unseen, agent, "a", "e" + n, 7, n, n));
            }
            final double agentSeconds = (System.nanoTime() - started) / 1e9;
            final int steps = played.stream().mapToInt(e -> e.transitions().size()).sum();

            final List<int[]> prompts = new ArrayList<>();
            for (final EpisodeRunner.Episode episode : played) {
                for (final Agent.Choice choice : episode.choices()) {
                    choice.sampled().ifPresent(s -> prompts.add(s.promptTokenIds()));
                }
            }
            started = System.nanoTime();
            long tokens = 0;
            for (final int[] prompt : prompts) {
                tokens += model.sample(List.of(prompt), GREEDY, 1).get(0).get(0).tokenIds().length;
            }
            final double generatorSeconds = (System.nanoTime() - started) / 1e9;

            started = System.nanoTime();
            for (int n = 0; n < EPISODES; n++) {
                final Deque<String> actions = new ArrayDeque<>();
                played.get(n).transitions().forEach(t -> actions.add(t.getAction()));
                runner.run(unseen, replay(actions), "a", "e" + n, 7, n, n);
            }
            final double envSeconds = (System.nanoTime() - started) / 1e9;

            final double agentRate = steps / agentSeconds;
            final double generatorRate = prompts.size() / generatorSeconds;
            final double envRate = steps / envSeconds;
            // What the agent could reach if it cost nothing beyond sampling and stepping.
            final double bound =
                    1 / (prompts.size() / (double) steps / generatorRate + 1 / envRate);
            System.out.printf(
                    Locale.ROOT,
                    "AgentBenchmark: %d episodes, %d steps, %d sampled (%d answer tokens, %d init"
                            + " steps)%n"
                            + "  agent            %8.1f steps/s%n"
                            + "  generator alone  %8.1f samples/s   agent / generator %.2f"
                            + " (goal >= 0.8)%n"
                            + "  environment alone %7.1f steps/s%n"
                            + "  generator + environment bound %.1f steps/s   agent / bound %.2f%n",
                    EPISODES,
                    steps,
                    prompts.size(),
                    tokens,
                    STEPS,
                    agentRate,
                    generatorRate,
                    agentRate / generatorRate,
                    envRate,
                    bound,
                    agentRate / bound);
        }
    }

    /** An agent that gives the environment {@code actions}, in order. */
    private static Agent replay(final Deque<String> actions) {
        return new Agent() {
            @Override
            public String name() {
                return "replay";
            }

            @Override
            public Choice act(
                    final Environment env, final List<Turn> history, final RandomGenerator rng) {
                return Choice.scripted(actions.removeFirst());
            }
        };
    }
}
