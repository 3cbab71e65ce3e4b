package dev.rwml.env.recorded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.NextStateKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TrajectoryParserTest {

    static final String FULL =
            """
            {"env": "alfworld", "env_version": "1", "split": "valid_seen", "episode_id": "ep-1",
             "task": "put a clean apple in fridge.", "initial_observation": "You are in a room.",
             "policy": "react", "agent_id": "run-7",
             "steps": [
               {"action": "go to fridge 1", "observation": "You arrive at fridge 1.",
                "reward": 0, "done": false, "valid": true, "kind": "TEXT",
                "admissible_actions": ["go to fridge 1", "look"]},
               {"action": "open fridge 1", "observation": "You open the fridge 1.",
                "reward": 1.0, "done": true, "kind": "text"}],
             "metadata": {"taskType": "pick_clean_then_place", "trial": 3, "ok": true}}
            """
                    .replace("\n", " ");

    private final TrajectoryParser parser =
            new TrajectoryParser(Optional.empty(), Optional.empty());

    @Test
    void shouldReadEveryFieldOfAFullLine() throws Exception {
        final RecordedEpisode e = parser.parse(4, FULL);
        assertThat(e.lineNumber()).isEqualTo(4);
        assertThat(e.env()).isEqualTo("alfworld");
        assertThat(e.envVersion()).isEqualTo("1");
        assertThat(e.split()).isEqualTo("valid_seen");
        assertThat(e.episodeId()).isEqualTo("ep-1");
        assertThat(e.task()).isEqualTo("put a clean apple in fridge.");
        assertThat(e.initialObservation()).isEqualTo("You are in a room.");
        assertThat(e.policy()).isEqualTo("react");
        assertThat(e.agentId()).isEqualTo("run-7");
        assertThat(e.metadata())
                .isEqualTo(Map.of("taskType", "pick_clean_then_place", "trial", "3", "ok", "true"));
        assertThat(e.steps())
                .containsExactly(
                        new RecordedStep(
                                "go to fridge 1",
                                "You arrive at fridge 1.",
                                0,
                                false,
                                true,
                                NextStateKind.TEXT,
                                Optional.of(List.of("go to fridge 1", "look"))),
                        new RecordedStep(
                                "open fridge 1",
                                "You open the fridge 1.",
                                1.0,
                                true,
                                true,
                                NextStateKind.TEXT,
                                Optional.empty()));
    }

    @Test
    void shouldApplyDefaultsWhenOptionalFieldsAreMissing() throws Exception {
        final RecordedEpisode e =
                parser.parse(
                        1,
                        "{\"env\":\"retail\",\"split\":\"test\",\"episode_id\":\"c1\",\"task\":\"t\","
                                + "\"initial_observation\":\"Hi!\",\"steps\":[{\"action\":\"a\","
                                + "\"observation\":\"o\",\"kind\":\"TOOL_RESULT\",\"valid\":false}]}");
        assertThat(e.envVersion()).isEqualTo(TrajectoryParser.DEFAULT_ENV_VERSION);
        assertThat(e.policy()).isEqualTo(TrajectoryParser.DEFAULT_POLICY);
        assertThat(e.agentId()).isEqualTo(TrajectoryParser.DEFAULT_AGENT_ID);
        assertThat(e.metadata()).isEmpty();
        final RecordedStep step = e.steps().get(0);
        assertThat(step.reward()).isZero();
        assertThat(step.done()).isFalse();
        assertThat(step.valid()).isFalse();
        assertThat(step.kind()).isEqualTo(NextStateKind.TOOL_RESULT);
    }

    @Test
    void shouldUseTheGivenEnvAndSplitWhenTheImportNamesThem() throws Exception {
        final TrajectoryParser named =
                new TrajectoryParser(Optional.of("airline"), Optional.of("test"));
        final RecordedEpisode e =
                named.parse(
                        1,
                        "{\"episode_id\":\"c1\",\"task\":\"t\",\"initial_observation\":\"Hi!\","
                                + "\"steps\":[{\"action\":\"a\",\"observation\":\"o\"}]}");
        assertThat(e.env()).isEqualTo("airline");
        assertThat(e.split()).isEqualTo("test");
    }

    @Test
    void shouldReportBadJsonWithItsLineNumber() {
        assertThatThrownBy(() -> parser.parse(7, "{\"env\": \"alfworld\", "))
                .isInstanceOfSatisfying(
                        MalformedLineException.class,
                        e -> {
                            assertThat(e.lineNumber()).isEqualTo(7);
                            assertThat(e.reason()).startsWith("not valid JSON");
                            assertThat(e.getMessage()).startsWith("line 7: ");
                        });
    }

    @Test
    void shouldNameTheMissingFieldWhenARequiredFieldIsAbsent() {
        assertReason(FULL.replace("\"task\": \"put a clean apple in fridge.\",", ""))
                .isEqualTo("missing field \"task\"");
        assertReason(FULL.replace("\"action\": \"open fridge 1\",", ""))
                .isEqualTo("missing field \"steps[1].action\"");
    }

    @Test
    void shouldRejectAnEpisodeWithoutSteps() {
        final String line =
                "{\"env\":\"alfworld\",\"split\":\"train\",\"episode_id\":\"e\",\"task\":\"t\","
                        + "\"initial_observation\":\"o\",\"steps\":[]}";
        assertReason(line).contains("\"steps\" is empty");
        assertReason(line.replace(",\"steps\":[]", "")).isEqualTo("missing field \"steps\"");
    }

    @Test
    void shouldRejectMistypedFieldsSayingWhatIsExpected() {
        assertReason(FULL.replace("\"reward\": 0,", "\"reward\": \"zero\","))
                .isEqualTo("\"steps[0].reward\" must be a finite number, not string");
        assertReason(FULL.replace("\"done\": false,", "\"done\": \"no\","))
                .isEqualTo("\"steps[0].done\" must be true or false, not string");
        assertReason(FULL.replace("\"kind\": \"TEXT\"", "\"kind\": \"IMAGE\""))
                .isEqualTo(
                        "\"steps[0].kind\" is \"IMAGE\"; use one of TEXT, TOOL_RESULT,"
                                + " USER_MESSAGE");
        assertReason("[1, 2]").contains("one JSON object per line");
    }

    @Test
    void shouldRejectDoneBeforeTheLastStep() {
        assertReason(FULL.replace("\"done\": false,", "\"done\": true,"))
                .contains("steps[0] has done=true but 1 more steps follow");
    }

    @Test
    void shouldRejectAnEnvNameWithASlashBecauseItStartsTransitionIds() {
        assertReason(FULL.replace("\"env\": \"alfworld\"", "\"env\": \"alf/world\""))
                .contains("free of '/'");
    }

    private org.assertj.core.api.AbstractStringAssert<?> assertReason(final String line) {
        try {
            parser.parse(3, line);
        } catch (MalformedLineException e) {
            assertThat(e.lineNumber()).isEqualTo(3);
            return assertThat(e.reason());
        }
        throw new AssertionError("expected line to be rejected: " + line);
    }
}
