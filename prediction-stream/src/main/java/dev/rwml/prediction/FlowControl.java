package dev.rwml.prediction;

import dev.rwml.runtime.StageName;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the live prediction stage back while too many of its groups wait downstream ({@code
 * flow.max.groups.ahead}), as asynchronous RL systems bound how far generation runs ahead of
 * training: every second it adds the reward stage's lag on the run's predictions topic to the
 * trainer's lag on its rewards topic (committed offsets against the read_committed ends), pauses
 * the stage's stream threads when that is above the limit and resumes them at half of it. A group
 * the trainer would drop as too stale is then not sampled at all. Transaction markers count as
 * records, so the figure is a little above the groups waiting. While the broker does not answer,
 * the stage stays as it is.
 */
final class FlowControl implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FlowControl.class);
    private static final Duration EVERY = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final String run;
    private final long limit;
    private final KafkaStreams streams;
    private final Admin admin;
    private final RunTopics topics;
    private final ScheduledExecutorService timer;

    private FlowControl(final PredictionConfig config, final KafkaStreams streams) {
        this.run = config.run();
        this.limit = config.flowMaxGroupsAhead();
        this.streams = streams;
        this.admin = config.connection().admin();
        this.topics = TopicCatalog.defaults().run(run);
        this.timer =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            final Thread t = new Thread(r, "rwml-prediction-flow-" + run);
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** Starts watching; {@code config.flowMaxGroupsAhead()} must be above 0. */
    static FlowControl start(final PredictionConfig config, final KafkaStreams streams) {
        final FlowControl flow = new FlowControl(config, streams);
        flow.timer.scheduleWithFixedDelay(flow::check, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info(
                "Run {}: flow control holds generation back above {} groups waiting downstream",
                config.run(),
                config.flowMaxGroupsAhead());
        return flow;
    }

    private void check() {
        try {
            final long ahead =
                    lag(topics.predictions().name(), StageName.REWARD.groupId(run))
                            + lag(topics.rewards().name(), StageName.TRAINER.groupId(run));
            if (ahead > limit && !streams.isPaused()) {
                streams.pause();
                LOG.info(
                        "Run {}: {} groups wait for the reward stage and the trainer, more than"
                                + " flow.max.groups.ahead={}: generation paused",
                        run,
                        ahead,
                        limit);
            } else if (ahead <= limit / 2 && streams.isPaused()) {
                streams.resume();
                LOG.info("Run {}: {} groups wait downstream: generation resumed", run, ahead);
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (final ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug(
                    "Run {}: flow control could not read the lag this time: {}", run, e.toString());
        }
    }

    /** Records of {@code topic} that consumer group {@code group} has not committed. */
    private long lag(final String topic, final String group)
            throws ExecutionException, InterruptedException, TimeoutException {
        final Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .get(topic)
                .partitions()
                .forEach(
                        p ->
                                request.put(
                                        new TopicPartition(topic, p.partition()),
                                        OffsetSpec.latest()));
        final Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        long lag = 0;
        for (final var end :
                admin.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .entrySet()) {
            final OffsetAndMetadata done = committed.get(end.getKey());
            lag += Math.max(0, end.getValue().offset() - (done == null ? 0 : done.offset()));
        }
        return lag;
    }

    /** Stops watching. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close(TIMEOUT);
    }
}
