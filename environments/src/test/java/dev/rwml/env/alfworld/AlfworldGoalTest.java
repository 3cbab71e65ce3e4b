package dev.rwml.env.alfworld;

import static dev.rwml.env.alfworld.Scenes.scene;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.Environment;
import org.junit.jupiter.api.Test;

class AlfworldGoalTest {

    /** Plays the actions, each must be admissible; returns the last step. */
    private static Environment.Step play(final AlfworldEnvironment env, final String... actions) {
        Environment.Step last = null;
        for (final String action : actions) {
            last = env.step(action);
            assertThat(last.actionValid()).as(action).isTrue();
        }
        return last;
    }

    private static void assertReached(final Environment.Step step, final AlfworldEnvironment env) {
        assertThat(step.reward()).isEqualTo(1.0);
        assertThat(step.done()).isTrue();
        assertThat(env.done()).isTrue();
    }

    private static void assertNotReached(
            final Environment.Step step, final AlfworldEnvironment env) {
        assertThat(step.reward()).isZero();
        assertThat(step.done()).isFalse();
        assertThat(env.done()).isFalse();
    }

    /** Goes to {@code from}, takes the object, goes to {@code to} and puts it there. */
    private static Environment.Step carry(
            final AlfworldEnvironment env,
            final String object,
            final String from,
            final String to) {
        return play(
                env,
                "go to " + from,
                "take " + object + " from " + from,
                "go to " + to,
                "move " + object + " to " + to);
    }

    /** Takes apple 1 from countertop 1, puts it in garbagecan 1 and takes it back. */
    private static void placeTheAppleAndTakeItBack(final AlfworldEnvironment env) {
        carry(env, "apple 1", "countertop 1", "garbagecan 1");
        play(env, "take apple 1 from garbagecan 1");
    }

    @Test
    void shouldReachPickAndPlaceOnlyWithTheRightTypeInTheRightReceptacle() {
        final AlfworldEnvironment env = scene(Grammar.CURRENT);
        assertNotReached(
                play(
                        env,
                        "go to fridge 1",
                        "open fridge 1",
                        "take egg 1 from fridge 1",
                        "go to garbagecan 1",
                        "move egg 1 to garbagecan 1"),
                env);
        assertNotReached(carry(env, "apple 1", "countertop 1", "sidetable 1"), env);
        assertReached(
                play(
                        env,
                        "take apple 1 from sidetable 1",
                        "go to garbagecan 2",
                        "move apple 1 to garbagecan 2"),
                env);
    }

    @Test
    void shouldReachLookInLightOnlyHoldingTheObjectWhereTheRightLampIsOn() {
        final Goal goal = new Goal(TaskType.LOOK_AT_OBJ_IN_LIGHT, "book", null, "desklamp", 1);
        final AlfworldEnvironment env =
                scene(
                        goal,
                        Grammar.CURRENT,
                        "desklamp 1@sidetable 1",
                        "book 1@countertop 1",
                        "apple 1@countertop 1");
        assertThat(env.task()).isEqualTo("examine the book with the desklamp.");
        assertNotReached(play(env, "go to sidetable 1", "use desklamp 1"), env);
        assertNotReached(play(env, "go to countertop 1", "take book 1 from countertop 1"), env);
        assertNotReached(
                play(
                        env,
                        "move book 1 to countertop 1",
                        "take apple 1 from countertop 1",
                        "go to sidetable 1"),
                env);
        assertNotReached(
                play(
                        env,
                        "move apple 1 to sidetable 1",
                        "go to countertop 1",
                        "take book 1 from countertop 1"),
                env);
        assertReached(play(env, "go to sidetable 1"), env);
    }

    @Test
    void shouldNotReachLookInLightWhenTheLampIsOff() {
        final Goal goal = new Goal(TaskType.LOOK_AT_OBJ_IN_LIGHT, "book", null, "desklamp", 0);
        final AlfworldEnvironment env = scene(goal, Grammar.CURRENT);
        assertThat(env.task()).isEqualTo("look at book under the desklamp.");
        assertNotReached(play(env, "go to sidetable 1", "take book 1 from sidetable 1"), env);
        assertReached(play(env, "use desklamp 1"), env);
    }

    @Test
    void shouldNotReachLookInLightUnderAnotherKindOfLamp() {
        final Goal goal = new Goal(TaskType.LOOK_AT_OBJ_IN_LIGHT, "book", null, "floorlamp", 0);
        final AlfworldEnvironment env = scene(goal, Grammar.CURRENT);
        assertNotReached(
                play(env, "go to sidetable 1", "take book 1 from sidetable 1", "use desklamp 1"),
                env);
    }

    @Test
    void shouldReachCleanOnlyWithACleanedObject() {
        final Goal goal =
                new Goal(TaskType.PICK_CLEAN_THEN_PLACE_IN_RECEP, "apple", "garbagecan", null, 1);
        final AlfworldEnvironment env = scene(goal, Grammar.CURRENT);
        assertThat(env.task()).isEqualTo("clean some apple and put it in garbagecan.");
        placeTheAppleAndTakeItBack(env);
        assertNotReached(play(env, "go to sinkbasin 1"), env);
        assertNotReached(play(env, "clean apple 1 with sinkbasin 1"), env);
        assertReached(play(env, "go to garbagecan 1", "move apple 1 to garbagecan 1"), env);
    }

    @Test
    void shouldReachHeatOnlyWhileTheObjectIsStillHot() {
        final Goal goal =
                new Goal(TaskType.PICK_HEAT_THEN_PLACE_IN_RECEP, "apple", "garbagecan", null, 0);
        final AlfworldEnvironment env = scene(goal, Grammar.CURRENT);
        assertThat(env.task()).isEqualTo("put a hot apple in garbagecan.");
        assertReachedOnlyWhileStillTreated(env, "heat", "microwave", "cool", "fridge");
    }

    @Test
    void shouldReachCoolOnlyWhileTheObjectIsStillCool() {
        final Goal goal =
                new Goal(TaskType.PICK_COOL_THEN_PLACE_IN_RECEP, "apple", "garbagecan", null, 1);
        final AlfworldEnvironment env = scene(goal, Grammar.CURRENT);
        assertThat(env.task()).isEqualTo("cool some apple and put it in garbagecan.");
        assertReachedOnlyWhileStillTreated(env, "cool", "fridge", "heat", "microwave");
    }

    /**
     * Treats the apple, undoes that with the opposite appliance, places it, takes it back and
     * treats it again: none of that reaches the goal; placing the treated apple then does.
     */
    private static void assertReachedOnlyWhileStillTreated(
            final AlfworldEnvironment env,
            final String treat,
            final String appliance,
            final String undo,
            final String undoAppliance) {
        final String goToAppliance = "go to " + appliance + " 1";
        final String treatApple = treat + " apple 1 with " + appliance + " 1";
        assertNotReached(
                play(
                        env,
                        "go to countertop 1",
                        "take apple 1 from countertop 1",
                        goToAppliance,
                        treatApple,
                        "go to " + undoAppliance + " 1",
                        undo + " apple 1 with " + undoAppliance + " 1",
                        "go to garbagecan 1",
                        "move apple 1 to garbagecan 1",
                        "take apple 1 from garbagecan 1",
                        goToAppliance,
                        treatApple),
                env);
        assertReached(play(env, "go to garbagecan 1", "move apple 1 to garbagecan 1"), env);
    }

    @Test
    void shouldReachPickTwoOnlyWithTwoDistinctObjectsInOneReceptacle() {
        final Goal goal = new Goal(TaskType.PICK_TWO_OBJ_AND_PLACE, "apple", "garbagecan", null, 1);
        final AlfworldEnvironment env =
                scene(
                        goal,
                        Grammar.CURRENT,
                        "apple 1@countertop 1",
                        "apple 2@countertop 1",
                        "egg 1@countertop 1");
        assertThat(env.task()).isEqualTo("find two apple and put them in garbagecan.");
        placeTheAppleAndTakeItBack(env);
        assertNotReached(play(env, "move apple 1 to garbagecan 1"), env);
        assertNotReached(carry(env, "egg 1", "countertop 1", "garbagecan 1"), env);
        assertNotReached(carry(env, "apple 2", "countertop 1", "garbagecan 2"), env);
        assertReached(
                play(
                        env,
                        "take apple 2 from garbagecan 2",
                        "go to garbagecan 1",
                        "move apple 2 to garbagecan 1"),
                env);
    }

    @Test
    void shouldPhraseEveryTaskTypeBothWays() {
        assertThat(TaskType.PICK_AND_PLACE_SIMPLE.phrase(1, "spraybottle", "toilet", null))
                .isEqualTo("put some spraybottle on toilet.");
        assertThat(TaskType.PICK_TWO_OBJ_AND_PLACE.phrase(0, "cd", "safe", null))
                .isEqualTo("put two cd in safe.");
        assertThat(TaskType.PICK_CLEAN_THEN_PLACE_IN_RECEP.phrase(0, "cloth", "cabinet", null))
                .isEqualTo("put a clean cloth in cabinet.");
        assertThat(TaskType.PICK_HEAT_THEN_PLACE_IN_RECEP.phrase(1, "egg", "countertop", null))
                .isEqualTo("heat some egg and put it in countertop.");
        assertThat(TaskType.PICK_COOL_THEN_PLACE_IN_RECEP.phrase(0, "pan", "stoveburner", null))
                .isEqualTo("put a cool pan in stoveburner.");
    }
}
