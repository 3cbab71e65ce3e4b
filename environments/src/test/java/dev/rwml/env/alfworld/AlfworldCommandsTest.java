package dev.rwml.env.alfworld;

import static dev.rwml.env.alfworld.AlfworldEnvironment.NOTHING;
import static dev.rwml.env.alfworld.Scenes.scene;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.Environment;
import dev.rwml.events.NextStateKind;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AlfworldCommandsTest {

    private static final String ROOM =
            "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a"
                    + " countertop 1, a fridge 1, a garbagecan 2, a garbagecan 1, a microwave 1, a"
                    + " sidetable 1, and a sinkbasin 1.";

    private final AlfworldEnvironment env = scene(Grammar.CURRENT);

    private String say(final String action) {
        final Environment.Step step = env.step(action);
        assertThat(step.kind()).isEqualTo(NextStateKind.TEXT);
        assertThat(step.observation()).isEqualTo(env.observation());
        return step.observation();
    }

    @Test
    void shouldOpenWithTheWelcomeTheRoomAndTheTask() {
        assertThat(env.observation())
                .isEqualTo(
                        "-= Welcome to TextWorld, ALFRED! =-\n\n"
                                + ROOM
                                + "\n\nYour task is to: put a apple in garbagecan.");
        assertThat(env.task()).isEqualTo("put a apple in garbagecan.");
    }

    @Test
    void shouldArriveWithTheReceptacleDescription() {
        assertThat(say("go to countertop 1"))
                .isEqualTo("You arrive at countertop 1. On the countertop 1, you see a apple 1.");
        assertThat(say("go to cabinet 1"))
                .isEqualTo("You arrive at cabinet 1. The cabinet 1 is closed.");
        assertThat(say("go to sidetable 1"))
                .isEqualTo(
                        "You arrive at sidetable 1. On the sidetable 1, you see a desklamp 1, and"
                                + " a book 1.");
        assertThat(say("go to garbagecan 1"))
                .isEqualTo("You arrive at garbagecan 1. On the garbagecan 1, you see nothing.");
        assertThat(say("go to garbagecan 1")).isEqualTo(NOTHING);
        assertThat(say("go to garbagecan 3")).isEqualTo(NOTHING);
    }

    @Test
    void shouldArriveAtNumberedLocationsInTheOlderGrammar() {
        final AlfworldEnvironment older = scene(Grammar.OLDER);
        assertThat(older.step("go to countertop 1").observation())
                .isEqualTo("You arrive at loc 1. On the countertop 1, you see a apple 1.");
        assertThat(older.step("go to cabinet 1").observation())
                .isEqualTo("You arrive at loc 3. The cabinet 1 is closed.");
    }

    @Test
    void shouldOpenAndCloseOnlyAClosableReceptacleTheAgentIsAt() {
        assertThat(say("open cabinet 1")).isEqualTo(NOTHING);
        say("go to cabinet 1");
        assertThat(say("close cabinet 1")).isEqualTo(NOTHING);
        assertThat(say("open cabinet 1"))
                .isEqualTo(
                        "You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1.");
        assertThat(say("open cabinet 1")).isEqualTo(NOTHING);
        assertThat(say("close cabinet 1")).isEqualTo("You close the cabinet 1.");
        say("go to countertop 1");
        assertThat(say("open countertop 1")).isEqualTo(NOTHING);
    }

    @Test
    void shouldTakeWithAnEmptyHandFromAnOpenReceptacleHere() {
        assertThat(say("take apple 1 from countertop 1")).isEqualTo(NOTHING);
        say("go to cabinet 1");
        assertThat(say("take mug 1 from cabinet 1")).isEqualTo(NOTHING);
        say("open cabinet 1");
        assertThat(say("take mug 1 from cabinet 1"))
                .isEqualTo("You pick up the mug 1 from the cabinet 1.");
        say("go to countertop 1");
        assertThat(say("take apple 1 from countertop 1")).isEqualTo(NOTHING);
        assertThat(say("take apple 1 from cabinet 1")).isEqualTo(NOTHING);
    }

    @Test
    void shouldMoveTheHeldObjectIntoAnOpenReceptacleHere() {
        assertThat(say("move apple 1 to countertop 1")).isEqualTo(NOTHING);
        say("go to countertop 1");
        say("take apple 1 from countertop 1");
        say("go to cabinet 1");
        assertThat(say("move apple 1 to cabinet 1")).isEqualTo(NOTHING);
        say("open cabinet 1");
        assertThat(say("put apple 1 in/on cabinet 1")).isEqualTo(NOTHING);
        assertThat(say("move apple 1 to cabinet 1"))
                .isEqualTo("You move the apple 1 to the cabinet 1.");
        assertThat(say("examine cabinet 1"))
                .isEqualTo("The cabinet 1 is open. In it, you see a mug 1, and a apple 1.");
    }

    @Test
    void shouldPutInOlderGrammarAndRefuseMove() {
        final AlfworldEnvironment older = scene(Grammar.OLDER);
        older.step("go to countertop 1");
        older.step("take apple 1 from countertop 1");
        older.step("go to sidetable 1");
        assertThat(older.admissibleActions()).contains("put apple 1 in/on sidetable 1");
        assertThat(older.step("move apple 1 to sidetable 1").observation()).isEqualTo(NOTHING);
        assertThat(older.step("put apple 1 in/on sidetable 1").observation())
                .isEqualTo("You put the apple 1 in/on the sidetable 1.");
    }

    @Test
    void shouldCleanHeatAndCoolOnlyWithTheRightApplianceHere() {
        say("go to countertop 1");
        say("take apple 1 from countertop 1");
        assertThat(say("clean apple 1 with sinkbasin 1")).isEqualTo(NOTHING);
        assertThat(say("examine apple 1")).isEqualTo("There's nothing special about apple 1.");
        say("go to sinkbasin 1");
        assertThat(say("heat apple 1 with sinkbasin 1")).isEqualTo(NOTHING);
        assertThat(say("clean apple 1 with sinkbasin 1"))
                .isEqualTo("You clean the apple 1 using the sinkbasin 1.");
        assertThat(say("examine apple 1")).isEqualTo("This is a clean apple 1.");
        say("go to microwave 1");
        assertThat(say("cool apple 1 with microwave 1")).isEqualTo(NOTHING);
        assertThat(say("heat apple 1 with microwave 1"))
                .isEqualTo("You heat the apple 1 using the microwave 1.");
        assertThat(say("examine apple 1")).isEqualTo("This is a hot and clean apple 1.");
        say("go to fridge 1");
        assertThat(say("heat apple 1 with fridge 1")).isEqualTo(NOTHING);
        assertThat(say("cool apple 1 with fridge 1"))
                .isEqualTo("You cool the apple 1 using the fridge 1.");
        assertThat(say("examine apple 1")).isEqualTo("This is a cool and clean apple 1.");
        say("go to microwave 1");
        say("heat apple 1 with microwave 1");
        assertThat(say("examine apple 1")).isEqualTo("This is a hot and clean apple 1.");
    }

    @Test
    void shouldTurnOnALampOnlyWhereItIs() {
        assertThat(say("use desklamp 1")).isEqualTo(NOTHING);
        say("go to sidetable 1");
        assertThat(say("use desklamp 1")).isEqualTo("You turn on the desklamp 1.");
        assertThat(env.admissibleActions()).doesNotContain("take desklamp 1 from sidetable 1");
    }

    @Test
    void shouldExamineOnlyWhatIsHereOrHeld() {
        assertThat(say("examine countertop 1")).isEqualTo(NOTHING);
        assertThat(say("examine apple 1")).isEqualTo(NOTHING);
        say("go to countertop 1");
        assertThat(say("examine countertop 1"))
                .isEqualTo("On the countertop 1, you see a apple 1.");
        assertThat(say("examine apple 1")).isEqualTo("There's nothing special about apple 1.");
        say("go to cabinet 1");
        assertThat(say("examine cabinet 1")).isEqualTo("The cabinet 1 is closed.");
        assertThat(say("examine mug 1")).isEqualTo(NOTHING);
    }

    @Test
    void shouldReportInventoryAndLook() {
        assertThat(say("inventory")).isEqualTo("You are not carrying anything.");
        assertThat(say("look")).isEqualTo(ROOM);
        say("go to countertop 1");
        assertThat(say("look"))
                .isEqualTo("You are facing the countertop 1. Next to it, you see nothing.");
        say("take apple 1 from countertop 1");
        assertThat(say("inventory")).isEqualTo("You are carrying: a apple 1.");
    }

    @Test
    void shouldListSortedAdmissibleCommands() {
        say("go to countertop 1");
        assertThat(env.admissibleActions())
                .containsExactly(
                        "examine apple 1",
                        "examine countertop 1",
                        "go to cabinet 1",
                        "go to fridge 1",
                        "go to garbagecan 1",
                        "go to garbagecan 2",
                        "go to microwave 1",
                        "go to sidetable 1",
                        "go to sinkbasin 1",
                        "inventory",
                        "look",
                        "take apple 1 from countertop 1");
        say("take apple 1 from countertop 1");
        assertThat(env.admissibleActions())
                .contains("examine apple 1", "move apple 1 to countertop 1")
                .isSorted();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "take mug 1 from cabinet 1",
                "open countertop 1",
                "go to countertop 1",
                "move apple 1 to countertop 1",
                "eat apple 1",
                "",
                "use desklamp 1",
                "heat apple 1 with microwave 1",
                "examine egg 1"
            })
    void shouldChangeNothingWhenTheActionIsNotAdmissible(final String action) {
        say("go to countertop 1");
        final String before = env.stateDigest();
        final List<String> admissible = env.admissibleActions();
        final Environment.Step step = env.step(action);
        assertThat(step.observation()).isEqualTo(NOTHING);
        assertThat(step.actionValid()).isFalse();
        assertThat(step.reward()).isZero();
        assertThat(env.stateDigest()).isEqualTo(before);
        assertThat(env.admissibleActions()).isEqualTo(admissible);
    }

    @Test
    void shouldEndTheEpisodeAtTheStepCapCountingInvalidActions() {
        final AlfworldEnvironment capped =
                new AlfworldEnvironment(
                        new Game(Scenes.KITCHEN, 0, Scenes.appleInGarbage(), List.of()),
                        Split.TRAIN,
                        Grammar.CURRENT,
                        3);
        assertThat(capped.step("look").done()).isFalse();
        assertThat(capped.step("dance").done()).isFalse();
        final Environment.Step last = capped.step("inventory");
        assertThat(last.done()).isTrue();
        assertThat(last.reward()).isZero();
        assertThat(capped.done()).isTrue();
        assertThat(capped.expertAction()).isEmpty();
    }
}
