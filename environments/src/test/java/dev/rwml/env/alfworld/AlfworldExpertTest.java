package dev.rwml.env.alfworld;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.Environment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AlfworldExpertTest {

    private static final int GAMES_PER_TYPE = 500;

    @ParameterizedTest
    @EnumSource(TaskType.class)
    void shouldSolveEveryGeneratedTaskOfEachTypeWithinTheStepCap(final TaskType type) {
        final List<String> failures = new ArrayList<>();
        long totalSteps = 0;
        for (int seed = 0; seed < GAMES_PER_TYPE; seed++) {
            final Split split = Split.values()[seed % Split.values().length];
            final Grammar grammar = seed % 2 == 0 ? Grammar.CURRENT : Grammar.OLDER;
            final AlfworldEnvironment env =
                    AlfworldGames.create(split, seed, grammar, Optional.of(type), 50);
            assertThat(env.taskType()).isEqualTo(type);
            double reward = 0;
            while (!env.done()) {
                final String action = env.expertAction().orElseThrow();
                final Environment.Step step = env.step(action);
                assertThat(step.actionValid())
                        .as("expert action '%s' in %s seed %d", action, split, seed)
                        .isTrue();
                reward += step.reward();
            }
            totalSteps += env.steps();
            if (reward != 1.0) {
                failures.add(split + "/" + seed + ": " + env.task());
            }
        }
        assertThat(failures).as("unsolved %s games", type.id()).isEmpty();
        assertThat(totalSteps / (double) GAMES_PER_TYPE).isLessThan(50);
    }

    @ParameterizedTest
    @EnumSource(TaskType.class)
    void shouldRecoverWhenAnotherPolicyDisturbsTheWorldBetweenExpertMoves(final TaskType type) {
        int solved = 0;
        final int games = 200;
        for (int seed = 0; seed < games; seed++) {
            final AlfworldEnvironment env =
                    AlfworldGames.create(
                            Split.TRAIN, seed, Grammar.CURRENT, Optional.of(type), 200);
            final SplittableRandom rng = new SplittableRandom(seed);
            while (!env.done()) {
                final List<String> admissible = env.admissibleActions();
                final String expert = env.expertAction().orElseThrow();
                assertThat(admissible).as("expert move in seed %d", seed).contains(expert);
                final boolean disturb = rng.nextDouble() < 0.3;
                env.step(disturb ? admissible.get(rng.nextInt(admissible.size())) : expert);
            }
            if (env.steps() < 200) {
                solved++;
            }
        }
        assertThat(solved)
                .as("%s games solved despite 30%% random moves", type.id())
                .isEqualTo(games);
    }
}
