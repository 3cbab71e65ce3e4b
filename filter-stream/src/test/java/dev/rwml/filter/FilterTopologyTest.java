package dev.rwml.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.Transition;
import dev.rwml.events.TransitionDifficulty;
import dev.rwml.schemas.deadletter.DeadLetters;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.AngleEmbedder;
import dev.rwml.scoring.score.SimilarityScorer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FilterTopologyTest {

    private static final String REGISTRY = "mock://filter-topology-test";
    private static final String NEAR = AngleEmbedder.withCosine(0.95);
    private static final String CLOSE = AngleEmbedder.withCosine(0.85);

    private TopologyTestDriver driver;
    private TestInputTopic<String, Transition> transitions;
    private TestOutputTopic<String, TransitionDifficulty> verdicts;
    private TestOutputTopic<String, Transition> curriculum;
    private TestOutputTopic<byte[], DeadLetter> deadLetters;

    @BeforeEach
    void start() {
        // keep no easy transition, so which ones reach the curriculum is certain; a replay's
        // slice ends before offset 4
        final FilterConfig config =
                FilterConfig.defaults("r1", "unused:9092", REGISTRY)
                        .with(
                                Map.of(
                                        "easy.keep.probability",
                                        "0",
                                        "envs",
                                        "alfworld",
                                        "stop.at",
                                        "0:4"));
        final ScriptedModel model =
                new ScriptedModel(Collections.nCopies(10, CLOSE))
                        .script("alfworld/easy/0", List.of(NEAR));
        final FilterMetrics metrics = new FilterMetrics(new SimpleMeterRegistry(), "r1");
        final Map<String, Object> registry = config.connection().registryConfig();
        driver =
                new TopologyTestDriver(
                        FilterTopology.build(
                                config,
                                FilterApp.wiring(config, registry),
                                new DifficultyJudge(
                                        config,
                                        model,
                                        new SimilarityScorer(new AngleEmbedder()),
                                        Clock.systemUTC()),
                                metrics),
                        FilterApp.streamsProperties(config, metrics));
        final RunTopics topics = TopicCatalog.defaults().run("r1");
        transitions =
                driver.createInputTopic(
                        TopicCatalog.TRANSITIONS,
                        new StringSerializer(),
                        EventSerdes.forValue(Transition.class, registry).serializer());
        verdicts =
                driver.createOutputTopic(
                        topics.difficulty().name(),
                        Serdes.String().deserializer(),
                        EventSerdes.forValue(TransitionDifficulty.class, registry).deserializer());
        curriculum =
                driver.createOutputTopic(
                        topics.curriculum().name(),
                        Serdes.String().deserializer(),
                        EventSerdes.forValue(Transition.class, registry).deserializer());
        deadLetters =
                driver.createOutputTopic(
                        topics.deadLetters().name(),
                        Serdes.ByteArray().deserializer(),
                        EventSerdes.forValue(DeadLetter.class, registry).deserializer());
    }

    @AfterEach
    void close() {
        driver.close();
    }

    private void pipe(final String key, final String id, final String env) {
        transitions.pipeInput(key, Fixtures.transition(id, env, "at:0"));
    }

    @Test
    void shouldPassOnlyTransitionsNotJudgedEasyToTheCurriculumAndRecordEveryVerdict() {
        pipe("alfworld/easy/0", "alfworld/easy/0", "alfworld");
        pipe("alfworld/bad/0", "alfworld/other/0", "alfworld");
        pipe("retail/skipped/0", "retail/skipped/0", "retail");
        pipe("alfworld/informative/0", "alfworld/informative/0", "alfworld");

        final Map<String, TransitionDifficulty> judged =
                verdicts.readKeyValuesToList().stream()
                        .collect(Collectors.toMap(kv -> kv.key, kv -> kv.value));
        assertThat(judged).containsOnlyKeys("alfworld/easy/0", "alfworld/informative/0");
        assertThat(judged.get("alfworld/easy/0").getKeepReason()).isEqualTo("easy-dropped");
        assertThat(judged.get("alfworld/informative/0").getKeepReason()).isEqualTo("informative");

        final List<TestRecord<String, Transition>> passed = curriculum.readRecordsToList();
        assertThat(passed).extracting(TestRecord::key).containsExactly("alfworld/informative/0");
        assertThat(passed.get(0).value())
                .isEqualTo(Fixtures.transition("alfworld/informative/0", "alfworld", "at:0"));

        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(new String(letters.get(0).key(), StandardCharsets.UTF_8))
                .isEqualTo("alfworld/bad/0");
        assertThat(letters.get(0).value().getStage()).isEqualTo("filter");
        assertThat(letters.get(0).value().getErrorMessage()).contains("differs from transitionId");
        assertThat(
                        new String(
                                letters.get(0)
                                        .headers()
                                        .lastHeader(DeadLetters.REASON_HEADER)
                                        .value(),
                                StandardCharsets.UTF_8))
                .isEqualTo(DeadLetters.PROCESSING);
    }

    @Test
    void shouldJudgeATransitionIdOnceAndDeadLetterItsSecondRecord() {
        pipe("alfworld/informative/0", "alfworld/informative/0", "alfworld");
        pipe("alfworld/informative/0", "alfworld/informative/0", "alfworld");

        assertThat(verdicts.readKeyValuesToList()).hasSize(1);
        assertThat(curriculum.readRecordsToList()).hasSize(1);
        final List<TestRecord<byte[], DeadLetter>> letters = deadLetters.readRecordsToList();
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).value().getErrorMessage())
                .contains(
                        "duplicate transition id alfworld/informative/0: first read at partition 0"
                                + " offset 0, again at partition 0 offset 1");
    }

    @Test
    void shouldJudgeNothingAtOrAfterTheSliceEnd() {
        for (int i = 0; i < 6; i++) {
            pipe("alfworld/informative/" + i, "alfworld/informative/" + i, "alfworld");
        }

        assertThat(verdicts.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly(
                        "alfworld/informative/0",
                        "alfworld/informative/1",
                        "alfworld/informative/2",
                        "alfworld/informative/3");
        assertThat(curriculum.readRecordsToList()).hasSize(4);
        assertThat(deadLetters.readRecordsToList()).isEmpty();
    }
}
