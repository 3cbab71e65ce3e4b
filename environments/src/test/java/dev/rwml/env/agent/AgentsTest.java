package dev.rwml.env.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.env.alfworld.AlfworldEnvironment;
import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class AgentsTest {

    private static List<String> actions(final dev.rwml.env.Agent agent, final long seed) {
        final AlfworldEnvironment env = AlfworldGames.create(Split.TRAIN, 3, Grammar.CURRENT);
        final SplittableRandom rng = new SplittableRandom(seed);
        final List<String> out = new ArrayList<>();
        while (!env.done()) {
            final String action = agent.act(env, List.of(), rng).action();
            out.add(action);
            env.step(action);
        }
        return out;
    }

    @Test
    void shouldPickOnlyAdmissibleActionsAndRepeatForTheSameSeed() {
        final RandomAgent agent = new RandomAgent();
        final AlfworldEnvironment env = AlfworldGames.create(Split.TRAIN, 3, Grammar.CURRENT);
        final SplittableRandom rng = new SplittableRandom(9);
        while (!env.done()) {
            final List<String> admissible = env.admissibleActions();
            final String action = agent.act(env, List.of(), rng).action();
            assertThat(admissible).contains(action);
            assertThat(env.step(action).actionValid()).isTrue();
        }
        assertThat(actions(agent, 9)).isEqualTo(actions(agent, 9)).isNotEqualTo(actions(agent, 10));
    }

    @Test
    void shouldFollowTheExpertExactly() {
        final AlfworldEnvironment env = AlfworldGames.create(Split.VALID_SEEN, 8, Grammar.OLDER);
        final ExpertAgent agent = new ExpertAgent();
        while (!env.done()) {
            final String expected = env.expertAction().orElseThrow();
            assertThat(agent.act(env, List.of(), new SplittableRandom(0)).action())
                    .isEqualTo(expected);
            env.step(expected);
        }
        assertThatThrownBy(() -> agent.act(env, List.of(), new SplittableRandom(0)).action())
                .hasMessageContaining("use the random agent");
    }

    @Test
    void shouldMixExpertRandomAndInvalidActionsAtTheirRates() {
        final EpsilonExpertAgent agent = new EpsilonExpertAgent(0.3, 0.2);
        final SplittableRandom rng = new SplittableRandom(1);
        int expert = 0;
        int invalid = 0;
        final int draws = 4_000;
        final AlfworldEnvironment env = AlfworldGames.create(Split.TRAIN, 12, Grammar.CURRENT);
        for (int i = 0; i < draws; i++) {
            final String action = agent.act(env, List.of(), rng).action();
            if (!env.admissibleActions().contains(action)) {
                invalid++;
            } else if (action.equals(env.expertAction().orElseThrow())) {
                expert++;
            }
        }
        assertThat(invalid / (double) draws).isBetween(0.17, 0.23);
        // Expert moves: the 50 % expert share plus random picks that happen to match it.
        assertThat(expert / (double) draws).isBetween(0.5, 0.6);
        assertThat(actions(agent, 4)).isEqualTo(actions(agent, 4));
    }

    @Test
    void shouldRejectRatesThatDoNotFormAProbability() {
        assertThatThrownBy(() -> new EpsilonExpertAgent(0.7, 0.4)).hasMessageContaining("sum <= 1");
        assertThatThrownBy(() -> new EpsilonExpertAgent(-0.1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
