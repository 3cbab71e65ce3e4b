package dev.rwml.prediction;

import dev.rwml.channel.ModelSlot;
import dev.rwml.events.DeadLetter;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.Sampling;
import dev.rwml.events.Transition;
import dev.rwml.runtime.errors.DeadLetterWriter;
import dev.rwml.runtime.errors.ErrorPolicy;
import dev.rwml.runtime.streams.UniqueTransitions;
import dev.rwml.schemas.serde.AvroArrays;
import dev.rwml.schemas.serde.EventDecodingException;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.RejectedTransitionException;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.TransitionRules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Buffers selected transitions in a changelogged state store and generates their prediction groups
 * in batches: when {@code batch.size} are buffered, or when the oldest has waited {@code
 * batch.max.wait} (a wall-clock punctuation). Under a {@linkplain GenerationGate#paced() paced}
 * gate it generates only the open round's transitions instead, with the round's version, in batches
 * formed by count alone (see {@link GenerationGate}).
 *
 * <p>Why a state store: under exactly_once_v2 the store's changelog writes, the forwarded groups
 * and the consumed offsets commit in one transaction. A transition whose offset is committed is
 * therefore either in the committed buffer (restored after a crash or rebalance and generated then)
 * or its group is committed output; an aborted transaction rolls back both. Nothing is lost and
 * nothing is emitted twice.
 */
final class BatchingPredictionProcessor
        implements Processor<byte[], byte[], byte[], SpecificRecord> {

    /** Name of the sink node the prediction groups go to. */
    static final String PREDICTIONS_SINK = "predictions-sink";

    /** Name of the sink node the dead letters go to. */
    static final String DEAD_LETTER_SINK = "dead-letters-sink";

    private static final Logger LOG = LoggerFactory.getLogger(BatchingPredictionProcessor.class);

    /** The largest key plus value the stage buffers; see {@link #oversized}. */
    static final int MAX_RECORD_BYTES = 512 * 1024;

    private final PredictionConfig config;
    private final String storeName;
    private final ModelSlot slot;
    private final PredictionMetrics metrics;
    private final Deserializer<Transition> transitions;
    private final DeadLetterWriter deadLetters;
    private final SamplingSettings sampling;
    private final GenerationGate gate;
    private KeyValueStore<String, String> seen;
    private final long samplingSeed;

    private ProcessorContext<byte[], SpecificRecord> context;
    private KeyValueStore<Long, BufferedRecord> buffer;
    private int buffered;
    private long oldestBufferedAtMs;
    private int partition;
    private long lastReadOffset = -1;

    BatchingPredictionProcessor(
            final PredictionConfig config,
            final String storeName,
            final ModelSlot slot,
            final PredictionMetrics metrics,
            final Deserializer<Transition> transitions,
            final DeadLetterWriter deadLetters,
            final GenerationGate gate) {
        this.config = config;
        this.gate = gate;
        this.storeName = storeName;
        this.slot = slot;
        this.metrics = metrics;
        this.transitions = transitions;
        this.deadLetters = deadLetters;
        this.sampling = config.sampling();
        this.samplingSeed = config.samplingSeed();
    }

    @Override
    public void init(final ProcessorContext<byte[], SpecificRecord> context) {
        this.context = context;
        this.buffer = context.getStateStore(storeName);
        this.seen = context.getStateStore(UniqueTransitions.STORE);
        // Counted, not approximateNumEntries(): RocksDB only estimates it, and a restored buffer
        // counted as empty would never be flushed by the wall-clock punctuation.
        this.buffered = count(buffer);
        this.oldestBufferedAtMs = context.currentSystemTimeMs();
        this.partition = context.taskId().partition();
        // After a restart the records read before it are not known; what the buffer holds was.
        this.lastReadOffset = lastBufferedOffset(buffer);
        if (buffered > 0) {
            LOG.info(
                    "Task {} restored {} buffered transitions; they are generated within {} ms",
                    context.taskId(),
                    buffered,
                    config.batchMaxWait().toMillis());
        }
        final long tick = Math.max(1, config.batchMaxWait().toMillis() / 4);
        context.schedule(
                Duration.ofMillis(tick), PunctuationType.WALL_CLOCK_TIME, this::flushIfDue);
    }

    @Override
    public void process(final Record<byte[], byte[]> record) {
        final RecordMetadata meta =
                context.recordMetadata()
                        .orElseThrow(() -> new IllegalStateException("records come from a topic"));
        lastReadOffset = Math.max(lastReadOffset, meta.offset());
        try {
            take(record, meta);
        } finally {
            if (gate.isPaced()) {
                generateRound();
            }
        }
    }

    private void take(final Record<byte[], byte[]> record, final RecordMetadata meta) {
        if (config.pastStop(meta.partition(), meta.offset())) {
            metrics.skipped(PredictionMetrics.AFTER_STOP);
            return;
        }
        final BufferedRecord incoming =
                new BufferedRecord(
                        record.key(),
                        record.value(),
                        record.timestamp(),
                        meta.topic(),
                        meta.partition(),
                        meta.offset(),
                        List.of(record.headers().toArray()));
        final String oversized = oversized(incoming);
        if (oversized != null) {
            deadLetter(incoming, new RejectedTransitionException(oversized));
            return;
        }
        final Transition transition = decode(incoming);
        if (transition == null) {
            return;
        }
        final String invalid = TransitionRules.invalidReason(incoming.key(), transition);
        if (invalid != null) {
            deadLetter(incoming, new RejectedTransitionException(invalid));
            return;
        }
        if (!config.envNames().isEmpty()
                && !config.envNames().contains(transition.getEnv().getName())) {
            metrics.skipped("env");
            gate.settled(meta.partition(), meta.offset(), false);
            return;
        }
        if (!config.splits().isEmpty()
                && !config.splits().contains(transition.getEnv().getSplit())) {
            metrics.skipped("split");
            gate.settled(meta.partition(), meta.offset(), false);
            return;
        }
        final String duplicate =
                UniqueTransitions.duplicateReason(seen, transition.getTransitionId(), meta);
        if (duplicate != null) {
            deadLetter(incoming, new RejectedTransitionException(duplicate));
            return;
        }
        if (buffered == 0) {
            oldestBufferedAtMs = context.currentSystemTimeMs();
        }
        // Keyed by source offset: unique within the task's one input partition, and ordered.
        buffer.put(incoming.offset(), incoming);
        buffered++;
        if (!gate.isPaced() && buffered >= config.batchSize()) {
            flush();
        }
    }

    /**
     * Why a record is too large to buffer, or null. A buffered entry must fit the store's
     * changelog, whose producer sends at most 1 MiB per request by default: a 10 MB transition
     * failed that write, and the replaced stream thread failed on it again and again.
     */
    private static String oversized(final BufferedRecord record) {
        final long size =
                (record.key() == null ? 0 : record.key().length)
                        + (record.value() == null ? 0 : record.value().length);
        if (size <= MAX_RECORD_BYTES) {
            return null;
        }
        return "record has "
                + size
                + " bytes, more than the "
                + MAX_RECORD_BYTES
                + " the prediction stage buffers (it would not fit the buffer store's"
                + " changelog); shorten the transition's texts where it is produced";
    }

    private static int count(final KeyValueStore<Long, BufferedRecord> store) {
        int n = 0;
        try (KeyValueIterator<Long, BufferedRecord> all = store.all()) {
            while (all.hasNext()) {
                all.next();
                n++;
            }
        }
        return n;
    }

    private static long lastBufferedOffset(final KeyValueStore<Long, BufferedRecord> store) {
        long last = -1;
        try (KeyValueIterator<Long, BufferedRecord> all = store.all()) {
            while (all.hasNext()) {
                last = Math.max(last, all.next().key);
            }
        }
        return last;
    }

    private void flushIfDue(final long nowMs) {
        if (gate.isPaced()) {
            generateRound();
        } else if (buffered > 0 && nowMs - oldestBufferedAtMs >= config.batchMaxWait().toMillis()) {
            flush();
        }
    }

    /** Generates every buffered transition, forwards the groups and empties the buffer. */
    private void flush() {
        final List<KeyValue<Long, BufferedRecord>> entries = new ArrayList<>(buffered);
        try (KeyValueIterator<Long, BufferedRecord> all = buffer.all()) {
            all.forEachRemaining(entries::add);
        }
        try (ModelSlot.Lease lease = slot.acquire()) {
            generate(lease.model(), entries);
        }
    }

    /**
     * Generates what the open round holds of this task's partition with the round's version: full
     * batches of {@code batch.size} in offset order, and the rest once the round's last record was
     * read. Waits (does nothing) while no round is open or another version serves.
     */
    private void generateRound() {
        final GenerationGate.Round round = gate.current().orElse(null);
        if (round == null || buffered == 0 || round.last(partition).isEmpty()) {
            return;
        }
        final long last = round.last(partition).getAsLong();
        final List<KeyValue<Long, BufferedRecord>> due = new ArrayList<>();
        try (KeyValueIterator<Long, BufferedRecord> upToLast = buffer.range(0L, last)) {
            upToLast.forEachRemaining(due::add);
        }
        final boolean roundRead = lastReadOffset >= last;
        if (due.size() < config.batchSize() && !(roundRead && !due.isEmpty())) {
            return;
        }
        try (ModelSlot.Lease lease = slot.acquire()) {
            final long serving = lease.model().version();
            if (serving > round.version()) {
                throw new IllegalStateException(
                        "round "
                                + round.index()
                                + " must be sampled by model version "
                                + round.version()
                                + ", but version "
                                + serving
                                + " already serves: a paced replay's trainer publishes only"
                                + " when a round is done, so another trainer writes to run "
                                + config.run());
            }
            if (serving < round.version()) {
                return; // the round's version is on its way to the slot
            }
            int from = 0;
            while (due.size() - from >= config.batchSize() || (roundRead && from < due.size())) {
                final int until = Math.min(due.size(), from + config.batchSize());
                generate(lease.model(), due.subList(from, until));
                from = until;
            }
        }
    }

    /** Generates {@code entries}, forwards their groups and removes them from the buffer. */
    private void generate(
            final PredictionModel model, final List<KeyValue<Long, BufferedRecord>> entries) {
        final List<Pending> pending = new ArrayList<>(entries.size());
        final int budget = config.promptBudget(model.maxContext());
        for (final KeyValue<Long, BufferedRecord> entry : entries) {
            final Transition transition = decode(entry.value);
            if (transition == null) {
                continue;
            }
            final Prompt prompt = model.prompt(transition, budget);
            final String tooLong = overLength(prompt, budget);
            if (tooLong != null) {
                deadLetter(entry.value, new RejectedTransitionException(tooLong));
                continue;
            }
            if (prompt.droppedTurns() > 0) {
                metrics.historyTruncated();
            }
            pending.add(new Pending(entry.value, transition, prompt.tokenIds()));
        }
        if (!pending.isEmpty()) {
            generateAndForward(model, pending);
        }
        for (final KeyValue<Long, BufferedRecord> entry : entries) {
            buffer.delete(entry.key);
        }
        buffered -= entries.size();
    }

    private String overLength(final Prompt prompt, final int budget) {
        if (prompt.fits()
                && (prompt.droppedTurns() == 0
                        || config.overLength() == OverLengthPolicy.TRUNCATE_HISTORY)) {
            return null;
        }
        return "prompt is longer than its budget of "
                + budget
                + " tokens (prompt.max.tokens="
                + config.maxPromptTokens()
                + ", at most the model's context less sampling.max.new.tokens="
                + config.maxNewTokens()
                + ")"
                + (prompt.fits()
                        ? " with its history and prompt.over.length=dead-letter"
                        : " even without history (" + prompt.tokenIds().length + " tokens)")
                + "; raise prompt.max.tokens or shorten the transition's texts";
    }

    private void generateAndForward(final PredictionModel model, final List<Pending> pending) {
        final long start = System.nanoTime();
        List<List<Sample>> groups;
        try {
            groups = model.sample(prompts(pending), sampling, seed(pending));
            checkShape(groups, pending.size());
        } catch (RuntimeException batchFailure) {
            if (ErrorPolicy.classify(batchFailure) != ErrorPolicy.Action.DEAD_LETTER) {
                // An outage is retried after the restart with the whole buffer, a refusal stops
                // the stage; neither is dead-lettered.
                throw batchFailure;
            }
            LOG.warn(
                    "Generation of a batch of {} failed with model version {} ({}); generating"
                            + " each transition alone to find the one that fails",
                    pending.size(),
                    model.version(),
                    batchFailure.toString());
            groups = generateOneByOne(model, pending);
        }
        final long nanos = System.nanoTime() - start;
        long generatedTokens = 0;
        int emitted = 0;
        final long now = context.currentSystemTimeMs();
        for (int i = 0; i < pending.size(); i++) {
            final List<Sample> group = groups.get(i);
            if (group == null) {
                continue;
            }
            final Pending item = pending.get(i);
            final PredictionGroup value = toGroup(model.version(), item, group, now);
            for (final Sample sample : group) {
                generatedTokens += sample.tokenIds().length;
            }
            context.forward(
                    new Record<byte[], SpecificRecord>(
                            item.record.key(),
                            value,
                            item.record.timestamp(),
                            item.record.kafkaHeaders()),
                    PREDICTIONS_SINK);
            gate.settled(item.record.partition(), item.record.offset(), true);
            emitted++;
        }
        metrics.batch(emitted, nanos, generatedTokens);
        LOG.debug(
                "Emitted {} groups with model version {} in {} ms",
                emitted,
                model.version(),
                nanos / 1_000_000);
    }

    private List<List<Sample>> generateOneByOne(
            final PredictionModel model, final List<Pending> pending) {
        final List<List<Sample>> groups = new ArrayList<>(pending.size());
        for (final Pending item : pending) {
            try {
                final List<List<Sample>> one =
                        model.sample(List.of(item.promptTokenIds), sampling, seed(List.of(item)));
                checkShape(one, 1);
                groups.add(one.get(0));
            } catch (RuntimeException e) {
                if (ErrorPolicy.classify(e) != ErrorPolicy.Action.DEAD_LETTER) {
                    throw e;
                }
                deadLetter(
                        item.record,
                        new IllegalStateException(
                                "generation failed with model version " + model.version(), e));
                groups.add(null);
            }
        }
        return groups;
    }

    private void checkShape(final List<List<Sample>> groups, final int prompts) {
        if (groups.size() != prompts) {
            throw new IllegalStateException(
                    "model returned " + groups.size() + " groups for " + prompts + " prompts");
        }
        for (final List<Sample> group : groups) {
            if (group.size() != sampling.groupSize()) {
                throw new IllegalStateException(
                        "model returned "
                                + group.size()
                                + " samples, group.size is "
                                + sampling.groupSize());
            }
        }
    }

    private PredictionGroup toGroup(
            final long version, final Pending item, final List<Sample> group, final long now) {
        final List<PredictionSample> samples = new ArrayList<>(group.size());
        for (final Sample sample : group) {
            samples.add(
                    PredictionSample.newBuilder()
                            .setText(sample.text())
                            .setPredictedNextState(sample.prediction().orElse(null))
                            .setTokenIds(AvroArrays.ints(sample.tokenIds()))
                            .setLogprobs(AvroArrays.floats(sample.logProbs()))
                            .build());
        }
        return PredictionGroup.newBuilder()
                .setTransitionId(item.transition.getTransitionId())
                .setRun(config.run())
                .setModelVersion(version)
                .setPromptTokenIds(AvroArrays.ints(item.promptTokenIds))
                .setSamples(samples)
                .setSampling(
                        Sampling.newBuilder()
                                .setTemperature(sampling.temperature())
                                .setTopP(sampling.topP())
                                .setMaxNewTokens(sampling.maxNewTokens())
                                .setGroupSize(sampling.groupSize())
                                .build())
                .setGeneratedAt(Instant.ofEpochMilli(now))
                .build();
    }

    private Transition decode(final BufferedRecord record) {
        if (record.value() == null) {
            deadLetter(
                    record,
                    new RejectedTransitionException(
                            "value is null (a tombstone), not a Transition"));
            return null;
        }
        try {
            return transitions.deserialize(record.topic(), record.kafkaHeaders(), record.value());
        } catch (RuntimeException e) {
            if (!isPoison(e)) {
                throw e;
            }
            deadLetter(record, e);
            return null;
        }
    }

    private void deadLetter(final BufferedRecord record, final Throwable error) {
        gate.settled(record.partition(), record.offset(), false);
        LOG.warn(
                "Dead-lettering {}-{}@{}: {}",
                record.topic(),
                record.partition(),
                record.offset(),
                error.getMessage());
        final ProducerRecord<byte[], DeadLetter> letter =
                deadLetters.deadLetter(
                        new DeadLetterWriter.Source(
                                record.topic(),
                                record.partition(),
                                record.offset(),
                                record.key(),
                                record.value(),
                                record.kafkaHeaders()),
                        error);
        context.forward(
                new Record<byte[], SpecificRecord>(
                        letter.key(), letter.value(), record.timestamp(), letter.headers()),
                DEAD_LETTER_SINK);
    }

    /**
     * Whether a decoding failure is the data's fault (dead-letter the record) rather than the
     * environment's, such as an unreachable registry or one that refuses the credentials (fail, and
     * retry after the restart).
     */
    private static boolean isPoison(final RuntimeException e) {
        return e instanceof EventDecodingException
                && ErrorPolicy.classify(e) == ErrorPolicy.Action.DEAD_LETTER;
    }

    /**
     * A seed derived from the stage's {@code sampling.seed} and the batch's transition ids: a batch
     * regenerated after a crash samples the same completions, and different batches sample
     * independently.
     */
    private long seed(final List<Pending> pending) {
        long seed = 0x2545F4914F6CDD1DL ^ (samplingSeed * 0x9E3779B97F4A7C15L);
        for (final Pending item : pending) {
            seed = seed * 31 + item.transition.getTransitionId().hashCode();
        }
        return seed;
    }

    private static List<int[]> prompts(final List<Pending> pending) {
        final List<int[]> prompts = new ArrayList<>(pending.size());
        for (final Pending item : pending) {
            prompts.add(item.promptTokenIds);
        }
        return prompts;
    }

    /** A buffered transition ready for generation. */
    private record Pending(BufferedRecord record, Transition transition, int[] promptTokenIds) {}
}
