package dev.rwml.env;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.agent.ExpertAgent;
import dev.rwml.env.alfworld.AlfworldEnvironment;
import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import dev.rwml.env.tau2.Splits;
import dev.rwml.env.tau2.Tau2Desk;
import dev.rwml.env.tau2.airline.AirlineDesk;
import dev.rwml.env.tau2.retail.RetailDesk;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The inadmissible actions the epsilon-expert and the guided agent draw: never admissible, written
 * in the environment's own grammar over its own things, and answered as a real invalid action is
 * ({@code Nothing happens.} with nothing changed in ALFWorld, {@code Error: ...} in tau2).
 */
class InadmissibleActionsTest {

    private static final List<String> ALFWORLD_VERBS =
            List.of(
                    "take ", "move ", "put ", "open ", "close ", "heat ", "cool ", "use ",
                    "go to ");

    @Test
    void shouldWriteAlfworldCommandsThatDoNothing() {
        final Set<String> seen = new HashSet<>();
        for (final Grammar grammar : Grammar.values()) {
            for (int game = 0; game < 20; game++) {
                final AlfworldEnvironment env = AlfworldGames.create(Split.TRAIN, game, grammar);
                final SplittableRandom rng = new SplittableRandom(game);
                while (!env.done()) {
                    final String action = env.inadmissibleAction(rng);
                    assertThat(env.admissibleActions()).doesNotContain(action);
                    assertThat(ALFWORLD_VERBS).anyMatch(action::startsWith);
                    final String before = env.stateDigest();
                    final Environment.Step step = env.step(action);
                    assertThat(step.observation()).isEqualTo(AlfworldEnvironment.NOTHING);
                    assertThat(step.actionValid()).isFalse();
                    assertThat(env.stateDigest()).isEqualTo(before);
                    seen.add(action.substring(0, action.indexOf(' ')));
                    env.step(new ExpertAgent().act(env, List.of(), rng).action());
                }
            }
        }
        // all the grammar's kinds of mistakes, not one
        assertThat(seen).contains("take", "open", "close", "heat", "cool", "use");
        assertThat(seen).containsAnyOf("move", "put");
    }

    @Test
    void shouldWriteTau2ReadsThatNameNothing() {
        for (int seed = 0; seed < 10; seed++) {
            for (final Tau2Desk desk :
                    List.of(
                            RetailDesk.create(Splits.TRAIN, seed),
                            AirlineDesk.create(Splits.TRAIN, seed))) {
                final SplittableRandom rng = new SplittableRandom(seed);
                for (int turn = 0; turn < 4 && !desk.done(); turn++) {
                    final String action = desk.inadmissibleAction(rng);
                    assertThat(action).startsWith("{").contains("\"name\":");
                    assertThat(desk.admissibleActions()).doesNotContain(action);
                    assertThat(desk.step(action).observation()).startsWith("Error: ");
                    desk.expertAction().ifPresent(desk::step);
                }
            }
        }
    }

    @Test
    void shouldDrawTheSameActionsForTheSameSeed() {
        final AlfworldEnvironment a = AlfworldGames.create(Split.TRAIN, 3, Grammar.CURRENT);
        final AlfworldEnvironment b = AlfworldGames.create(Split.TRAIN, 3, Grammar.CURRENT);
        final SplittableRandom ra = new SplittableRandom(9);
        final SplittableRandom rb = new SplittableRandom(9);
        for (int i = 0; i < 20; i++) {
            assertThat(a.inadmissibleAction(ra)).isEqualTo(b.inadmissibleAction(rb));
        }
    }
}
