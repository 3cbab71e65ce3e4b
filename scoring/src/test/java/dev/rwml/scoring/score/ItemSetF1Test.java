package dev.rwml.scoring.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.events.NextStateKind;
import java.util.List;
import org.junit.jupiter.api.Test;

class ItemSetF1Test {

    private static final String OBSERVED =
            "On the countertop 1, you see a apple 1, a bread 1, a mug 2, and a knife 1.";

    @Test
    void shouldPayTheSameItemsInAnyOrderInFull() {
        assertThat(
                        ItemSetF1.score(
                                OBSERVED,
                                "On the countertop 1, you see a knife 1, a mug 2, a apple 1, and a"
                                        + " bread 1."))
                .isEqualTo(1.0);
    }

    @Test
    void shouldScoreAWrongItemByTheF1OfTheSets() {
        // 3 of 4 items right on both sides: F1 = 2 * 3 / (4 + 4).
        assertThat(
                        ItemSetF1.score(
                                OBSERVED,
                                "On the countertop 1, you see a apple 1, a bread 1, a mug 2, and a"
                                        + " fork 1."))
                .isCloseTo(0.75, within(1e-12));
        assertThat(
                        ItemSetF1.score(
                                OBSERVED, "On the countertop 1, you see a apple 1, and a bread 1."))
                .as("two of four: 2 * 2 / (4 + 2)")
                .isCloseTo(2.0 / 3, within(1e-12));
        assertThat(ItemSetF1.score(OBSERVED, "On the countertop 1, you see a fork 1, and a cup 1."))
                .isZero();
    }

    @Test
    void shouldFallBackToExactMatchWithoutAListOrOnOtherWords() {
        assertThat(ItemSetF1.score("Nothing happens.", " Nothing   happens. ")).isEqualTo(1.0);
        assertThat(ItemSetF1.score("Nothing happens.", "You arrive at sink 1.")).isZero();
        assertThat(
                        ItemSetF1.score(
                                OBSERVED,
                                "On the countertop 2, you see a apple 1, a bread 1, a mug 2, and a"
                                        + " knife 1."))
                .as("another place")
                .isZero();
        assertThat(
                        ItemSetF1.score(
                                "On the desk 1, you see nothing.",
                                "On the desk 1, you see nothing."))
                .isEqualTo(1.0);
        assertThat(
                        ItemSetF1.score(
                                "On the desk 1, you see nothing.",
                                "On the desk 1, you see a pen 1."))
                .isZero();
    }

    @Test
    void shouldReadTheListedItems() {
        assertThat(ItemSetF1.items(OBSERVED))
                .containsExactly("apple 1", "bread 1", "mug 2", "knife 1");
        assertThat(ItemSetF1.items("You arrive at sink 1. On the sink 1, you see a cup 1."))
                .containsExactly("cup 1");
        assertThat(ItemSetF1.items("Nothing happens.")).isEqualTo(List.of());
    }

    @Test
    void shouldBeSelectableAsARewardWithItsCalibratedThreshold() {
        final RewardSpec spec = RewardSpec.parse("items");
        assertThat(spec.method()).isEqualTo(RewardMethod.ITEM_SET_F1);
        assertThat(spec.threshold()).isEqualTo(RewardSpec.ITEM_SET_THRESHOLD);
        assertThat(
                        RewardSpecTable.parse("alfworld/TEXT=item-set-f1")
                                .specFor("alfworld", NextStateKind.TEXT))
                .isEqualTo(spec);
        assertThat(spec.reward(0.75)).as("one wrong item of four").isZero();
    }
}
