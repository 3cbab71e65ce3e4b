package dev.rwml.env.tau2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.Environment;
import dev.rwml.env.tau2.retail.RetailDesk;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UserSimulatorTest {

    private static final UserScenario SCENARIO =
            new UserScenario(
                    "Hi, I'd like to cancel an order.",
                    "I want to cancel my order.",
                    Map.of(
                            InfoKind.ORDER_ID, "The order id is #W1234567.",
                            InfoKind.NAME_ZIP, "I'm Sara Doe, zip 78701."),
                    Set.of(InfoKind.EMAIL),
                    false);

    @Test
    void shouldRevealInformationOnlyWhenAskedForIt() {
        final UserSimulator user = new UserSimulator(SCENARIO);
        assertThat(user.opening()).doesNotContain("#W1234567").doesNotContain("78701");
        assertThat(user.reply("How are you today?", false, false))
                .isEqualTo("Sorry, I'm not sure what you mean. I want to cancel my order.");
        assertThat(user.revealed()).isEmpty();
        assertThat(user.reply(InfoKind.ORDER_ID.question(), false, false))
                .isEqualTo("The order id is #W1234567.")
                .doesNotContain("78701");
        assertThat(user.revealed()).containsExactly(InfoKind.ORDER_ID);
    }

    @Test
    void shouldSayItDoesNotKnowWhatItWasNotGiven() {
        final UserSimulator user = new UserSimulator(SCENARIO);
        assertThat(user.reply(InfoKind.EMAIL.question(), false, false))
                .isEqualTo("Sorry, I don't remember my email address.");
        assertThat(user.reply(InfoKind.NAME_ZIP.question(), false, false))
                .isEqualTo("I'm Sara Doe, zip 78701.");
    }

    @Test
    void shouldConfirmStopAndTransferWhenAsked() {
        final UserSimulator user = new UserSimulator(SCENARIO);
        assertThat(user.reply("Please confirm (yes/no): cancel order #W1234567?", false, false))
                .isEqualTo("Yes, please go ahead.");
        assertThat(user.reply("Done. Anything else?", true, false)).endsWith(UserSimulator.STOP);
        assertThat(user.reply("Please hold on.", false, true)).isEqualTo(UserSimulator.TRANSFER);
    }

    @Test
    void shouldStopOnlyOnceTheGoalIsMetInAConversation() {
        Tau2Desk desk;
        int seed = 0;
        do {
            desk = RetailDesk.create(Splits.TRAIN, seed++);
        } while (!desk.goldTask().kind().equals("cancel_pending_order"));
        final java.util.List<String> plan = desk.goldTask().plan();
        for (int i = 0; i < plan.size() - 1; i++) {
            final Environment.Step step = desk.step(plan.get(i));
            assertThat(step.observation()).doesNotContain(UserSimulator.STOP);
        }
        assertThat(desk.databaseMatchesGold()).isTrue();
        final Environment.Step last = desk.step(plan.get(plan.size() - 1));
        assertThat(last.observation()).endsWith(UserSimulator.STOP);
        assertThat(last.reward()).isEqualTo(1.0);
    }
}
