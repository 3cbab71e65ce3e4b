package dev.rwml.ops.cli.bench;

import dev.rwml.env.EnvKind;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.produce.KafkaSettings;
import dev.rwml.env.produce.ProducerConfig;
import dev.rwml.env.produce.ProducerResult;
import dev.rwml.env.produce.ProgressListener;
import dev.rwml.env.produce.TransitionProducer;
import dev.rwml.ops.cli.Progress;
import dev.rwml.ops.cli.bench.BenchState.Slice;
import dev.rwml.ops.cli.bench.BenchState.Step;
import dev.rwml.ops.cli.demo.DemoSettings;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
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
 * The bench's data in {@code rwml.transitions}: the pretraining slice the base model learns from,
 * then per seed one slice of new ALFWorld episodes whose offsets every arm of that seed replays.
 */
final class BenchData {

    private final Connection connection;
    private final BenchRun.Settings settings;
    private final BenchState state;
    private final PrintWriter out;

    BenchData(
            final Connection connection,
            final BenchRun.Settings settings,
            final BenchState state,
            final PrintWriter out) {
        this.connection = connection;
        this.settings = settings;
        this.state = state;
        this.out = out;
    }

    /** Produces the pretraining episodes once. */
    void pretraining() throws IOException {
        final Optional<String> before = state.done(Step.PRETRAINING);
        if (before.isPresent()) {
            Progress.say(out, "Pretraining slice: done before (%s)", before.get());
            return;
        }
        final ProducerResult result =
                produce(settings.demo().pretrainEpisodes(), DemoSettings.SEED);
        Progress.say(
                out,
                "Pretraining slice: %d transitions of %d ALFWorld episodes",
                result.transitions(),
                result.episodes());
        state.markDone(Step.PRETRAINING, result.transitions() + " transitions");
    }

    /** Produces seed {@code seed}'s RWML data slice once and records its offsets. */
    void slice(final int seed) throws IOException {
        final Step step = Step.slice(seed);
        if (state.done(step).isPresent()) {
            return;
        }
        final Map<Integer, Long> from = endOffsets();
        final ProducerResult result = produce(settings.sliceEpisodes(), DemoSettings.SEED + seed);
        final Slice slice = new Slice(from, endOffsets());
        state.recordSlice(seed, slice);
        Progress.say(
                out,
                "RWML data slice of seed %d: %d transitions of %d episodes, offsets %s until %s",
                seed,
                result.transitions(),
                result.episodes(),
                Slice.text(slice.from()),
                Slice.text(slice.until()));
        state.markDone(step, Slice.text(slice.until()));
    }

    private ProducerResult produce(final int episodes, final long seed) {
        return new TransitionProducer(
                        ProducerConfig.builder(EnvKind.ALFWORLD, KafkaSettings.of(connection))
                                .agents(1)
                                .episodes(episodes)
                                .seed(seed)
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
