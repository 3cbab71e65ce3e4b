package dev.rwml.env.tau2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.Environment;
import dev.rwml.env.Environment.Step;
import dev.rwml.env.tau2.airline.AirlineDesk;
import dev.rwml.env.tau2.retail.RetailDesk;
import dev.rwml.events.NextStateKind;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Tau2DeskTest {

    private static Tau2Desk retail(final String kind) {
        for (int seed = 0; ; seed++) {
            final Tau2Desk desk = RetailDesk.create(Splits.TRAIN, seed);
            if (desk.goldTask().kind().equals(kind)) {
                return desk;
            }
        }
    }

    private static String email(final Tau2Desk desk) {
        return desk.goldTask().scenario().known().getOrDefault(InfoKind.EMAIL, "none");
    }

    @Test
    void shouldOpenWithTheUsersReasonAndKeepHiddenInstructionsOutOfTheTask() {
        final Tau2Desk desk = retail("cancel_pending_order");
        assertThat(desk.observation()).isEqualTo(desk.goldTask().scenario().opening());
        assertThat(desk.observation()).doesNotContain("#W").doesNotContain("@");
        assertThat(desk.task()).contains(Tau2Desk.GREETING).contains("cancel_pending_order");
        assertThat(desk.task()).doesNotContain("#W").doesNotContain("@example.com");
        assertThat(desk.metadata()).containsEntry("task_kind", "cancel_pending_order");
    }

    @Test
    void shouldReturnToolResultsAndUserRepliesWithTheirKinds() {
        final Tau2Desk desk = retail("cancel_pending_order");
        final Environment.Step reply = desk.step(InfoKind.ORDER_ID.question());
        assertThat(reply.kind()).isEqualTo(NextStateKind.USER_MESSAGE);
        assertThat(reply.observation()).contains("#W");
        final Environment.Step tool =
                desk.step("{\"name\": \"list_all_product_types\", \"arguments\": {}}");
        assertThat(tool.kind()).isEqualTo(NextStateKind.TOOL_RESULT);
        assertThat(tool.observation()).startsWith("{\"Backpack\":");
        assertThat(desk.observation()).isEqualTo(tool.observation());
        assertThat(tool.actionValid()).isTrue();
    }

    @Test
    void shouldParseToolCallsTolerantly() {
        final Tau2Desk desk = retail("order_status");
        final String fenced = "```json\n{'name': 'list_all_product_types', arguments: {},}\n```";
        assertThat(desk.step(fenced).observation()).startsWith("{\"Backpack\":");
        final String stringArgs =
                "Action: {\"name\": \"get_user_details\", \"arguments\": \"{\\\"user_id\\\": \\\"x_y_1\\\"}\"}";
        assertThat(desk.step(stringArgs).observation()).isEqualTo("Error: User not found");
    }

    @Test
    void shouldMarkUnparsableUnknownAndMalformedCallsInvalid() {
        final Tau2Desk desk = retail("order_status");
        final Object before = desk.databaseSnapshot();
        final Environment.Step broken =
                desk.step("{\"name\": \"get_order_details\", \"arguments\": {");
        assertThat(broken.observation()).startsWith("Error: ");
        assertThat(broken.actionValid()).isFalse();
        final Environment.Step unknown =
                desk.step("{\"name\": \"delete_everything\", \"arguments\": {}}");
        assertThat(unknown.observation()).startsWith("Error: unknown tool 'delete_everything'");
        assertThat(unknown.actionValid()).isFalse();
        final Environment.Step missing =
                desk.step("{\"name\": \"get_order_details\", \"arguments\": {}}");
        assertThat(missing.observation()).isEqualTo("Error: missing argument 'order_id'");
        assertThat(missing.actionValid()).isFalse();
        final Environment.Step rule =
                desk.step(
                        "{\"name\": \"cancel_pending_order\", \"arguments\": {\"order_id\": \"#W0000000\", \"reason\": \"no longer needed\"}}");
        assertThat(rule.observation()).isEqualTo("Error: Order not found");
        assertThat(rule.actionValid()).isTrue();
        assertThat(desk.databaseSnapshot()).isEqualTo(before);
    }

    @Test
    void shouldEndWithTransferAndNoRewardWhenAgentTransfersAWriteTask() {
        final Tau2Desk desk = retail("cancel_pending_order");
        desk.step(
                "{\"name\": \"transfer_to_human_agents\", \"arguments\": {\"summary\": \"user wants help\"}}");
        assertThat(desk.done()).isFalse();
        final Environment.Step last = desk.step("You are being transferred to a human agent.");
        assertThat(last.observation()).isEqualTo(UserSimulator.TRANSFER);
        assertThat(last.done()).isTrue();
        assertThat(last.reward()).isZero();
    }

    @Test
    void shouldEndAtTheStepCapWithoutReward() {
        final Tau2Desk desk = RetailDesk.create(Splits.TRAIN, 3, 5);
        Environment.Step step = null;
        for (int i = 0; i < 5; i++) {
            assertThat(desk.done()).isFalse();
            step = desk.step("Hello?");
        }
        assertThat(step.done()).isTrue();
        assertThat(step.reward()).isZero();
        assertThat(desk.done()).isTrue();
        assertThat(desk.expertAction()).isEmpty();
        assertThat(desk.step("Hello?").actionValid()).isFalse();
    }

    @Test
    void shouldOfferSortedCandidatesIncludingReadsOfRevealedIdsAndTheExpertAction() {
        final Tau2Desk desk = retail("cancel_pending_order");
        desk.step(InfoKind.ORDER_ID.question());
        final List<String> actions = desk.admissibleActions();
        assertThat(actions).isSorted().doesNotHaveDuplicates();
        assertThat(actions).contains(desk.expertAction().orElseThrow());
        assertThat(actions).anyMatch(a -> a.contains("get_order_details") && a.contains("#W"));
        assertThat(actions).contains(InfoKind.EMAIL.question());
        assertThat(desk.admissibleActions()).isEqualTo(actions);
    }

    @Test
    void shouldProduceIdenticalDatabasesTasksAndConversationsForTheSameSeed() {
        for (int seed = 0; seed < 8; seed++) {
            for (final boolean airline : List.of(false, true)) {
                final Tau2Desk a =
                        airline
                                ? AirlineDesk.create(Splits.TEST, seed)
                                : RetailDesk.create(Splits.TEST, seed);
                final Tau2Desk b =
                        airline
                                ? AirlineDesk.create(Splits.TEST, seed)
                                : RetailDesk.create(Splits.TEST, seed);
                assertThat(a.databaseSnapshot()).isEqualTo(b.databaseSnapshot());
                assertThat(a.goldTask()).isEqualTo(b.goldTask());
                assertThat(randomTurns(a, seed)).isEqualTo(randomTurns(b, seed));
            }
        }
    }

    @Test
    void shouldGenerateDifferentEpisodesForTrainAndTest() {
        assertThat(RetailDesk.create(Splits.TRAIN, 7).databaseSnapshot())
                .isNotEqualTo(RetailDesk.create(Splits.TEST, 7).databaseSnapshot());
        assertThat(AirlineDesk.create(Splits.TRAIN, 7).databaseSnapshot())
                .isNotEqualTo(AirlineDesk.create(Splits.TEST, 7).databaseSnapshot());
    }

    @Test
    void shouldSurviveRandomAgentsWithoutThrowing() {
        for (int seed = 0; seed < 12; seed++) {
            final Tau2Desk desk =
                    seed % 2 == 0
                            ? RetailDesk.create(Splits.TRAIN, seed)
                            : AirlineDesk.create(Splits.TRAIN, seed);
            final List<Step> steps = randomTurns(desk, seed).stream().map(Turn::step).toList();
            assertThat(desk.done()).as("seed %d ended within its step budget", seed).isTrue();
            assertThat(steps).isNotEmpty().hasSizeLessThanOrEqualTo(Tau2Desk.DEFAULT_MAX_STEPS);
            assertThat(steps).allSatisfy(s -> assertThat(s.observation()).isNotBlank());
            assertThat(steps.subList(0, steps.size() - 1))
                    .as("steps before the last")
                    .allSatisfy(
                            s -> {
                                assertThat(s.done()).isFalse();
                                assertThat(s.reward()).isZero();
                            });
            final Step last = steps.get(steps.size() - 1);
            assertThat(last.done()).isTrue();
            assertThat(last.reward()).isIn(0.0, 1.0);
        }
    }

    /** One action of an agent and what the desk answered. */
    private record Turn(String action, Step step) {}

    /** Random admissible actions until the desk ends, but never more than one past its cap. */
    private static List<Turn> randomTurns(final Tau2Desk desk, final long seed) {
        final SplittableRandom rng = new SplittableRandom(seed);
        final List<Turn> out = new ArrayList<>();
        while (!desk.done() && out.size() <= Tau2Desk.DEFAULT_MAX_STEPS) {
            final List<String> actions = desk.admissibleActions();
            final String action = actions.get(rng.nextInt(actions.size()));
            out.add(new Turn(action, desk.step(action)));
        }
        return out;
    }
}
