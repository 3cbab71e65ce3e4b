package dev.rwml.scoring.score;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StructureMaskerTest {

    private static final String ORDER =
            "{\"order_id\": \"#W2378156\", \"status\": \"delivered\", \"total\": 1207.55,"
                    + " \"items\": [{\"name\": \"Keyboard\", \"price\": 259.4, \"gift\": false}],"
                    + " \"note\": null}";

    private static final String OTHER_ORDER =
            "{\"order_id\": \"#W9000001\", \"status\": \"pending\", \"total\": 88.0,"
                    + " \"items\": [{\"name\": \"Lamp\", \"price\": 88.0, \"gift\": true}],"
                    + " \"note\": null}";

    private static final String USER =
            "{\"user_id\": \"mia_garcia_4516\", \"email\": \"mia@example.com\","
                    + " \"address\": {\"city\": \"Austin\", \"zip\": \"78701\"}}";

    private static final String ERROR = "Error: order #W2378156 not found";

    @Test
    void shouldMaskValuesToTheirTypesWhileKeepingKeysAndStructure() {
        assertThat(StructureMasker.tokens("{\"b\": 1, \"a\": [\"x\", true, null]}"))
                .containsExactly(
                        "{", "a", "[", "<str>", "<bool>", "<null>", "]", "b", "<num>", "}");
    }

    @Test
    void shouldIgnoreFieldOrderWhenMasking() {
        assertThat(StructureMasker.tokens("{\"a\": 1, \"b\": \"x\"}"))
                .isEqualTo(StructureMasker.tokens("{\"b\": \"y\", \"a\": 2}"));
    }

    @Test
    void shouldKeepErrorTextAsWords() {
        assertThat(StructureMasker.tokens(ERROR))
                .containsExactly("error", ":", "order", "#", "w2378156", "not", "found");
        assertThat(StructureMasker.tokens("{\"result\": \"Error: no seats\"}"))
                .contains("error", "no", "seats");
    }

    @Test
    void shouldTreatMalformedJsonAsText() {
        final List<String> tokens = StructureMasker.tokens("{\"order_id\": \"#W1\", ");
        assertThat(tokens).doesNotContain("<str>").contains("order_id", "w1");
    }

    @Test
    void shouldScoreSameShapeWithOtherValuesHigh() {
        assertThat(rouge(OTHER_ORDER, ORDER)).isEqualTo(1.0);
    }

    @Test
    void shouldScoreDifferentShapeLow() {
        assertThat(rouge(USER, ORDER)).isLessThanOrEqualTo(0.4);
    }

    @Test
    void shouldScoreErrorAgainstJsonLow() {
        assertThat(rouge(ERROR, ORDER)).isLessThanOrEqualTo(0.2);
        assertThat(rouge(ORDER, ERROR)).isLessThanOrEqualTo(0.2);
    }

    @Test
    void shouldScoreSameErrorWithOtherIdHigh() {
        assertThat(rouge("Error: order #W1111111 not found", ERROR)).isGreaterThanOrEqualTo(0.8);
    }

    @Test
    void shouldPassOnlySameShapeUnderTheDefaultToolSpec() {
        final RewardSpec spec = RewardSpec.rougeL(RewardSpec.TOOL_ROUGE_THRESHOLD);
        assertThat(spec.reward(rouge(OTHER_ORDER, ORDER))).isEqualTo(1.0);
        assertThat(spec.reward(rouge(USER, ORDER))).isZero();
        assertThat(spec.reward(rouge(ERROR, ORDER))).isZero();
    }

    private static double rouge(final String predicted, final String observed) {
        return RougeL.roundToFifth(
                RougeL.f1(StructureMasker.tokens(predicted), StructureMasker.tokens(observed)));
    }
}
