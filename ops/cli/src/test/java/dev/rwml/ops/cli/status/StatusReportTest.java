package dev.rwml.ops.cli.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StatusReportTest {

    @Test
    void shouldShowLagPerStageWithItsGroupAndState() {
        final String text = StatusReport.text(StatusFixtures.sample());

        assertThat(text)
                .containsPattern("prediction\\s+rwml-exp1-prediction\\s+42\\s+not started")
                .containsPattern("reward\\s+rwml-exp1-reward\\s+3\\s+consuming")
                .contains("rwml.exp1.predictions=3");
    }

    @Test
    void shouldShowVersionsWithRatesPassRatesAndDashesForUnknownFigures() {
        final String text = StatusReport.text(StatusFixtures.sample());

        assertThat(text)
                .containsPattern(
                        "0\\s+2026-11-30 10:00:00Z\\s+init\\s+300\\s+0\\s+-\\s+-\\s+0.250 \\(10\\)\\s+2\\s+-\\s")
                .containsPattern(
                        "1\\s+2026-11-30 10:00:40Z\\s+grpo\\s+4\\s+80\\s+2.00\\s+0.375\\s+-\\s+-\\s+0.8s\\s+0.0123\\s+0.0004");
    }

    @Test
    void shouldShowTopicRatesAndMissingTopics() {
        final String text = StatusReport.text(StatusFixtures.sample());

        assertThat(text)
                .containsPattern("rwml.transitions\\s+500\\s+12.5")
                .containsPattern("rwml.exp1.models\\s+\\(missing\\)\\s+-");
    }

    @Test
    void shouldListLatestDeadLettersWithReasonSourceAndHowToInspectThem() {
        final String text = StatusReport.text(StatusFixtures.sample());

        assertThat(text)
                .contains("dead letters: 1")
                .contains(
                        "#0 2026-11-30 10:00:05Z prediction UNKNOWN_SCHEMA from"
                                + " rwml.transitions/2/17: schema id 99 is not registered")
                .contains("rwml dlq --run exp1 list");
    }

    @Test
    void shouldWriteJsonWithIsoTimesAndNullsForUnknownFigures() throws Exception {
        final JsonNode json =
                new ObjectMapper().readTree(StatusReport.json(StatusFixtures.sample()));

        assertThat(json.get("run").asText()).isEqualTo("exp1");
        assertThat(json.get("collectedAt").asText()).isEqualTo("2026-11-30T10:02:00Z");
        assertThat(json.get("versions")).hasSize(2);
        assertThat(json.get("versions").get(1).get("metrics").get("passRate").asDouble())
                .isEqualTo(0.375);
        assertThat(json.get("versions").get(0).get("trainedGroupsPerSecond").isNull()).isTrue();
        assertThat(json.get("stages").get(0).get("lagByTopic").get("rwml.transitions").asLong())
                .isEqualTo(42);
        assertThat(json.get("deadLetters").get(0).get("latest").get(0).get("reason").asText())
                .isEqualTo("UNKNOWN_SCHEMA");
        assertThat(json.get("filter").get("easy").asLong()).isEqualTo(60);
    }

    @Test
    void shouldShowTheEasyFractionTheFilterStageMeasured() {
        assertThat(StatusReport.text(StatusFixtures.sample()))
                .contains(
                        "filter: 112 transitions judged, 60 easy (53.6%), 83 passed on to the"
                                + " curriculum");
    }
}
