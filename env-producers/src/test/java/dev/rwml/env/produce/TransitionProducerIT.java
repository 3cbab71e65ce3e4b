package dev.rwml.env.produce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.runtime.settings.Connection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TransitionProducerIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    private static KafkaSettings kafka() {
        return KafkaSettings.of(Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()));
    }

    /** The run's episodes computed here with the episode runner alone, in episode order. */
    private static List<Transition> expected(final ProducerConfig config, final int episodes) {
        final EnvironmentSource source = config.env().source(config.split(), config.grammar());
        final List<Transition> all = new ArrayList<>();
        for (int n = 0; n < episodes; n++) {
            all.addAll(
                    new EpisodeRunner(
                                    config.historyTurns(),
                                    EpisodeRunner.DEFAULT_MAX_STEPS,
                                    EpisodeClock.forEpisode(config.baseTime(), n))
                            .run(
                                    source,
                                    config.policy().agent(config.epsilon(), config.invalidRate()),
                                    "agent-" + config.agentOf(n),
                                    config.seed(),
                                    n));
        }
        return all;
    }

    private static Map<String, List<Transition>> consume(final List<Transition> expected) {
        final Set<String> keys =
                expected.stream().map(Transition::getTransitionId).collect(Collectors.toSet());
        return TransitionsTopic.read(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl(), keys);
    }

    @Test
    void shouldPublishEveryTransitionKeyedByItsIdWhenAgentsRunConcurrently() {
        final ProducerConfig config =
                ProducerConfig.builder(EnvKind.ALFWORLD, kafka())
                        .split("valid_seen")
                        .grammar(Grammar.OLDER)
                        .agents(3)
                        .episodes(7)
                        .seed(9101)
                        .policy(PolicyKind.EPSILON)
                        .epsilon(0.3)
                        .historyTurns(3)
                        .build();
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final ProducerResult result =
                new TransitionProducer(config, meters, ProgressListener.NONE).run();

        final List<Transition> expected = expected(config, 7);
        assertThat(result.episodes()).isEqualTo(7);
        assertThat(result.transitions()).isEqualTo(expected.size());
        assertThat(result.sendErrors()).isZero();
        assertThat(result.stopped()).isFalse();
        assertThat(meters.get("rwml.env.transitions").tag("env", "alfworld").counter().count())
                .isEqualTo(expected.size());
        assertThat(meters.get("rwml.env.episodes").counter().count()).isEqualTo(7);

        final Map<String, List<Transition>> published = consume(expected);
        assertThat(published).hasSize(expected.size());
        for (final Transition t : expected) {
            assertThat(published.get(t.getTransitionId())).containsExactly(t);
        }
        assertThat(published.values().stream().map(l -> l.get(0).getAgentId()).distinct())
                .containsExactlyInAnyOrder("agent-0", "agent-1", "agent-2");
    }

    @Test
    void shouldPublishIdenticalRecordsWhenRunTwiceWithTheSameSeed() {
        final ProducerConfig config =
                ProducerConfig.builder(EnvKind.RETAIL, kafka())
                        .split("test")
                        .agents(2)
                        .episodes(4)
                        .seed(9202)
                        .policy(PolicyKind.RANDOM)
                        .build();
        final ProducerResult first = TransitionProducer.run(config);
        final ProducerResult second = TransitionProducer.run(config);
        assertThat(second.transitions()).isEqualTo(first.transitions()).isPositive();

        final List<Transition> expected = expected(config, 4);
        final Map<String, List<Transition>> published = consume(expected);
        assertThat(published).hasSize(expected.size());
        published.forEach(
                (key, copies) -> {
                    assertThat(copies).as(key).hasSize(2);
                    assertThat(copies.get(1)).as(key).isEqualTo(copies.get(0));
                });
    }

    @Test
    void shouldSendOnlyWholeEpisodesWhenStoppedDuringARateLimitedRun() {
        final ProducerConfig config =
                ProducerConfig.builder(EnvKind.AIRLINE, kafka())
                        .agents(1)
                        .episodes(500)
                        .seed(9303)
                        .rate(40)
                        .progressInterval(Duration.ofMillis(100))
                        .build();
        final TransitionProducer[] producer = new TransitionProducer[1];
        producer[0] =
                new TransitionProducer(
                        config,
                        new SimpleMeterRegistry(),
                        progress -> {
                            if (progress.transitions() > 0) {
                                producer[0].stop();
                            }
                        });
        final ProducerResult result = producer[0].run();

        assertThat(result.stopped()).isTrue();
        assertThat(result.episodes()).isBetween(1L, 499L);
        final List<Transition> whole = expected(config, (int) result.episodes());
        assertThat(result.transitions()).isEqualTo(whole.size());
        assertThat(whole.get(whole.size() - 1).getDone()).isTrue();
        assertThat(consume(whole)).hasSize(whole.size());
    }
}
