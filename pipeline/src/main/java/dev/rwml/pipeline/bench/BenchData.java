package dev.rwml.pipeline.bench;

import dev.rwml.env.EnvKind;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProducerResult;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.pipeline.bench.BenchState.Slice;
import dev.rwml.pipeline.bench.BenchState.Step;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The bench's data in {@code rwml.transitions}: the pretraining slice the base model learns from
 * (both command grammars), the validation slice the filter model is SFT'd on, then per seed one
 * slice of new ALFWorld episodes whose offsets every arm of that seed replays.
 */
final class BenchData {

    private final Connection connection;
    private final BenchRun.Settings settings;
    private final BenchState state;
    private final RunOutput output;

    BenchData(
            final Connection connection,
            final BenchRun.Settings settings,
            final BenchState state,
            final RunOutput output) {
        this.connection = connection;
        this.settings = settings;
        this.state = state;
        this.output = output;
    }

    /**
     * Produces the pretraining episodes once: the current grammar's, then the older grammar's (the
     * skill the arms never train, where the bench measures forgetting).
     */
    void pretraining() throws IOException {
        final Optional<String> before = state.done(Step.PRETRAINING);
        if (before.isPresent()) {
            output.say("Pretraining slice: done before (%s)", before.get());
            return;
        }
        final ProducerResult current =
                produce(settings.data().pretrainEpisodes(), DemoSettings.SEED, Grammar.CURRENT);
        final ProducerResult older =
                settings.data().olderGrammarEpisodes() == 0
                        ? null
                        : produce(
                                settings.data().olderGrammarEpisodes(),
                                DemoSettings.SEED + 1_000,
                                Grammar.OLDER);
        final String summary =
                current.transitions()
                        + " transitions of "
                        + current.episodes()
                        + " episodes"
                        + (older == null
                                ? ""
                                : " and "
                                        + older.transitions()
                                        + " of "
                                        + older.episodes()
                                        + " in the older grammar");
        output.say("Pretraining slice: %s", summary);
        state.markDone(Step.PRETRAINING, summary);
    }

    /** Produces the filter model's validation slice once and records its offsets. */
    void validation() throws IOException {
        produceSlice(
                BenchState.VALIDATION,
                settings.data().filterEpisodes(),
                DemoSettings.SEED + 500,
                "Validation slice (the filter model's SFT data)");
    }

    /** Produces seed {@code seed}'s RWML data slice once and records its offsets. */
    void slice(final int seed) throws IOException {
        produceSlice(
                seed,
                settings.data().sliceEpisodes(),
                DemoSettings.SEED + seed,
                "RWML data slice of seed " + seed);
    }

    private void produceSlice(
            final int number, final int episodes, final long seed, final String what)
            throws IOException {
        final Step step = Step.slice(number);
        if (state.done(step).isPresent()) {
            return;
        }
        final Map<Integer, Long> from = endOffsets();
        final ProducerResult result = produce(episodes, seed, Grammar.CURRENT);
        final Slice slice = new Slice(from, endOffsets());
        state.recordSlice(number, slice);
        output.say(
                "%s: %d transitions of %d episodes, offsets %s until %s",
                what,
                result.transitions(),
                result.episodes(),
                Slice.text(slice.from()),
                Slice.text(slice.until()));
        state.markDone(step, Slice.text(slice.until()));
    }

    private ProducerResult produce(final int episodes, final long seed, final Grammar grammar) {
        return new TransitionProducer(
                        ProducerConfig.builder(EnvKind.ALFWORLD, KafkaSettings.of(connection))
                                .agents(1)
                                .episodes(episodes)
                                .seed(seed)
                                .grammar(grammar)
                                .policy(PolicyKind.EPSILON)
                                .epsilon(settings.demo().epsilon())
                                .baseTime(Instant.now())
                                .build(),
                        new SimpleMeterRegistry(),
                        ProgressListener.NONE)
                .run();
    }

    /** The end offset of every partition of {@code rwml.transitions}. */
    private Map<Integer, Long> endOffsets() {
        try (Admin admin = connection.admin()) {
            final List<TopicPartitionInfo> partitions =
                    admin.describeTopics(List.of(TopicCatalog.TRANSITIONS))
                            .allTopicNames()
                            .get()
                            .get(TopicCatalog.TRANSITIONS)
                            .partitions();
            final Map<TopicPartition, OffsetSpec> ask = new LinkedHashMap<>();
            partitions.forEach(
                    p ->
                            ask.put(
                                    new TopicPartition(TopicCatalog.TRANSITIONS, p.partition()),
                                    OffsetSpec.latest()));
            final Map<Integer, Long> ends = new TreeMap<>();
            admin.listOffsets(ask)
                    .all()
                    .get()
                    .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the end offsets", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "cannot read the end offsets of " + TopicCatalog.TRANSITIONS, e.getCause());
        }
    }
}
