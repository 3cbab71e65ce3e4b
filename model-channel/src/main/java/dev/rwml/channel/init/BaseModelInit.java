package dev.rwml.channel.init;

import dev.rwml.channel.ChunkObserver;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.channel.ModelPublisher;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.TrainingCounters;
import dev.rwml.events.Transition;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.topics.RunName;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.BaseModelTrainer;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Initialises a run ({@code rwml model init}): reads the pretraining slice of {@code
 * rwml.transitions} (see {@link PretrainingSlice}), trains the tokenizer and a small base world
 * model on it by SFT ({@link BaseModelTrainer}), and publishes it as version 0 of the run on its
 * model channel in one Kafka transaction, with objective {@code init}, the slice's exact offset
 * ranges as lineage, the SFT's counters and metrics, and the model config.
 *
 * <p>The slice is kept apart from the data RWML trains on by construction: the prediction stage of
 * the run is started after init from {@link Result#nextOffsets()}, the offsets right after the
 * slice, so no transition the base model was pretrained on is ever predicted, rewarded and trained
 * on again by GRPO. The small base model stands in for the pretrained LLM of the paper.
 *
 * <p>A run has exactly one version 0: init refuses a run that has any version. Two inits of the
 * same run share a transactional id, so the later one fences the earlier, which then fails at
 * commit without publishing.
 */
public final class BaseModelInit {

    private static final Logger LOG = LoggerFactory.getLogger(BaseModelInit.class);

    private BaseModelInit() {}

    /**
     * What to initialise.
     *
     * @param run the run name (the suffix of its {@code rwml.<run>.*} topics)
     * @param connection the cluster and registry, with their security settings
     * @param settings the model, tokenizer and SFT settings
     * @param maxTransitions the most transitions in the slice
     * @param envs environment names to pretrain on; empty means every environment
     * @param timeout the longest one read of the cluster may take
     */
    public record Config(
            String run,
            Connection connection,
            BaseModelTrainer.Settings settings,
            int maxTransitions,
            Set<String> envs,
            Duration timeout) {

        public Config {
            RunName.of(run);
            Objects.requireNonNull(connection, "connection");
            Objects.requireNonNull(settings, "settings");
            if (maxTransitions <= 0) {
                throw new IllegalArgumentException(
                        "maxTransitions must be positive, got " + maxTransitions);
            }
            envs = Set.copyOf(envs);
            Objects.requireNonNull(timeout, "timeout");
        }

        @Override
        public String toString() {
            // The client settings may hold passwords and JAAS configs: they never reach a log.
            return "Config[run="
                    + run
                    + ", settings="
                    + settings
                    + ", maxTransitions="
                    + maxTransitions
                    + ", envs="
                    + envs
                    + ", timeout="
                    + timeout
                    + "]";
        }

        /** A preset model trained for {@code steps} steps with a one-minute read timeout. */
        public static Config of(
                final String run,
                final Connection connection,
                final String preset,
                final int steps,
                final int maxTransitions,
                final Set<String> envs,
                final long seed) {
            return new Config(
                    run,
                    connection,
                    BaseModelTrainer.Settings.of(preset, steps, seed),
                    maxTransitions,
                    envs,
                    Duration.ofSeconds(60));
        }
    }

    /** Told what init is doing, for progress on a terminal. */
    public interface Listener {
        /** No progress reports. */
        Listener NONE = new Listener() {};

        /** The slice was read; training starts next. */
        default void sliceRead(final PretrainingSlice slice) {}

        /** SFT step {@code metrics.step()} of {@code totalSteps} finished. */
        default void step(final StepMetrics metrics, final int totalSteps) {}

        /** Version 0 was committed. */
        default void published(final ModelVersion manifest) {}
    }

    /**
     * What init published.
     *
     * @param manifest version 0's manifest as committed
     * @param checkpoint the base model (with its optimizer state), for callers in the same JVM
     * @param transitions transitions in the slice
     * @param examples training examples made of them
     * @param skipped transitions left out because they exceed the model's context
     * @param history metrics of every SFT step
     */
    public record Result(
            ModelVersion manifest,
            Checkpoint checkpoint,
            int transitions,
            int examples,
            int skipped,
            List<StepMetrics> history) {

        /** The slice's offset ranges, one per partition of {@code rwml.transitions}. */
        public List<OffsetRange> lineage() {
            return manifest.getLineage();
        }

        /**
         * Per partition of {@code rwml.transitions}, the first offset after the slice: where the
         * run's prediction stage starts, so RWML never trains on the pretraining data.
         */
        public Map<Integer, Long> nextOffsets() {
            final Map<Integer, Long> next = new LinkedHashMap<>();
            for (final OffsetRange r : manifest.getLineage()) {
                next.put(r.getPartition(), r.getUntilOffset());
            }
            return next;
        }
    }

    /**
     * Initialises the run: creates its topics if missing, refuses it if it has a version already,
     * reads the slice, trains, and commits version 0.
     *
     * @throws RunAlreadyInitializedException when the run has a version
     * @throws IllegalStateException when the slice holds no transition, or another init of the run
     *     fenced this one
     */
    public static Result run(final Config config, final Listener listener) {
        final TopicCatalog catalog = TopicCatalog.defaults();
        ensureTopics(config.connection(), config.run(), catalog);
        try (ModelChannel channel = ModelChannel.of(config.connection(), config.run());
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(channel.producerConfig("rwml-init-" + config.run()))) {
            // First fence any earlier init of this run, then look: what it committed is visible.
            producer.initTransactions();
            refuseIfInitialised(channel, config.timeout());
            final PretrainingSlice slice =
                    readSlice(
                            config.connection(),
                            config.run(),
                            config.maxTransitions(),
                            config.envs(),
                            config.timeout());
            listener.sliceRead(slice);
            final BaseModelTrainer.Result trained =
                    new BaseModelTrainer()
                            .train(slice.transitions(), config.settings(), listener::step);
            final ModelVersion sent =
                    publish(
                            channel,
                            producer,
                            manifest(config, slice, trained),
                            Checkpoint.FORMAT,
                            trained.checkpoint().toBytes());
            listener.published(sent);
            return new Result(
                    sent,
                    trained.checkpoint(),
                    slice.transitions().size(),
                    trained.examples(),
                    trained.skipped(),
                    trained.history());
        }
    }

    static void ensureTopics(
            final Connection connection, final String run, final TopicCatalog catalog) {
        try (Admin admin = connection.admin()) {
            new TopicAdmin(admin, catalog)
                    .ensure(catalog.forRun(run))
                    .warnings()
                    .forEach(w -> LOG.warn("Topic check: {}", w));
        }
    }

    static void refuseIfInitialised(final ModelChannel channel, final Duration timeout) {
        try (ModelChannelReader reader =
                new ModelChannelReader(channel, Optional.empty(), timeout)) {
            final List<ModelVersion> versions = reader.manifests();
            if (!versions.isEmpty()) {
                throw new RunAlreadyInitializedException(
                        channel.run(), versions.get(0).getArtifact().getSha256());
            }
        }
    }

    /**
     * The pretraining slice of {@code rwml.transitions} for {@code run}: at most {@code
     * maxTransitions} of the environments {@code envs} (all when empty).
     *
     * @throws IllegalStateException when it holds no transition
     */
    static PretrainingSlice readSlice(
            final Connection connection,
            final String run,
            final int maxTransitions,
            final Set<String> envs,
            final Duration timeout) {
        final PretrainingSlice slice;
        try (EventSerde<Transition> serde =
                TopicCatalog.defaults().transitions().valueSerde(connection.registryConfig())) {
            slice =
                    PretrainingSlice.read(
                            connection,
                            serde,
                            maxTransitions,
                            envs,
                            timeout,
                            "rwml-init-" + run + "-slice");
        }
        if (slice.transitions().isEmpty()) {
            throw new IllegalStateException(
                    "no transitions to pretrain on in "
                            + TopicCatalog.TRANSITIONS
                            + (envs.isEmpty() ? "" : " of envs " + new TreeSet<>(envs))
                            + " ("
                            + slice.scanned()
                            + " records read): produce transitions first (rwml demo, or the"
                            + " environment producers), or drop the --env filter");
        }
        return slice;
    }

    private static ModelVersion.Builder manifest(
            final Config config,
            final PretrainingSlice slice,
            final BaseModelTrainer.Result trained) {
        return ModelVersion.newBuilder()
                .setRun(config.run())
                .setVersion(0)
                .setParentVersion(null)
                .setCreatedAt(Instant.now())
                .setObjective("init")
                .setCounters(counters(trained.history()))
                .setMetrics(
                        sftMetrics(trained.history(), slice, trained.examples(), trained.skipped()))
                .setLineage(slice.lineage())
                .setModelConfig(trained.checkpoint().config().toManifestMap())
                .setTrainerConfig(trainerConfig(config));
    }

    /** The steps and tokens of an SFT on the slice. */
    static TrainingCounters counters(final List<StepMetrics> history) {
        long tokens = 0;
        for (final StepMetrics m : history) {
            tokens += m.tokens();
        }
        return TrainingCounters.newBuilder().setSteps(history.size()).setTokens(tokens).build();
    }

    /**
     * Version 0's metrics after an SFT on {@code slice}: its losses, last gradient norm and
     * learning rate, and what the slice held ({@code examples} trained on, {@code skipped} too long
     * for the model's context).
     */
    static Map<String, Double> sftMetrics(
            final List<StepMetrics> history,
            final PretrainingSlice slice,
            final int examples,
            final int skipped) {
        final StepMetrics last = history.get(history.size() - 1);
        // the mean of the last tenth of the steps is steadier than the last batch's loss
        final int tail = Math.max(1, history.size() / 10);
        double tailLoss = 0;
        for (final StepMetrics m : history.subList(history.size() - tail, history.size())) {
            tailLoss += m.loss();
        }
        final Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("loss", tailLoss / tail);
        metrics.put("firstLoss", history.get(0).loss());
        metrics.put("lastLoss", last.loss());
        metrics.put("gradNorm", last.gradNorm());
        metrics.put("learningRate", last.learningRate());
        metrics.put("transitions", (double) slice.transitions().size());
        metrics.put("examples", (double) examples);
        metrics.put("skippedTooLong", (double) skipped);
        metrics.put("otherEnvs", (double) slice.otherEnvs());
        metrics.put("undecodable", (double) slice.undecodable());
        return metrics;
    }

    private static Map<String, String> trainerConfig(final Config config) {
        final BaseModelTrainer.Settings s = config.settings();
        final TrainConfig t = s.train();
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("objective", "init");
        m.put("steps", Integer.toString(s.steps()));
        m.put("batchSize", Integer.toString(s.batchSize()));
        m.put("tokenizerVocabSize", Integer.toString(s.vocabSize()));
        m.put("seed", Long.toString(s.seed()));
        m.put("historyTurns", Integer.toString(s.historyTurns()));
        m.put("acting", Boolean.toString(s.acting()));
        m.put("learningRate", Double.toString(t.learningRate()));
        m.put("warmupSteps", Integer.toString(t.warmupSteps()));
        m.put("schedule", t.schedule().name());
        m.put("weightDecay", Double.toString(t.weightDecay()));
        m.put("maxGradNorm", Double.toString(t.maxGradNorm()));
        m.put("maxTransitions", Integer.toString(config.maxTransitions()));
        m.put(
                "envs",
                config.envs().isEmpty() ? "*" : String.join(",", new TreeSet<>(config.envs())));
        return m;
    }

    /**
     * Commits version 0 in one transaction of {@code producer} (whose transactions were
     * initialised, fencing any earlier init of the run).
     *
     * @throws IllegalStateException when another init of the run fenced this one meanwhile
     */
    static ModelVersion publish(
            final ModelChannel channel,
            final KafkaProducer<byte[], byte[]> producer,
            final ModelVersion.Builder manifest,
            final String format,
            final byte[] artifact) {
        try {
            producer.beginTransaction();
            final ModelVersion sent =
                    ModelPublisher.chunked(channel)
                            .publish(producer, manifest, format, artifact, ChunkObserver.NONE);
            producer.commitTransaction();
            LOG.info(
                    "Run {} initialised: version 0 committed ({} bytes, sha256 {}, lineage {})",
                    channel.run(),
                    artifact.length,
                    sent.getArtifact().getSha256(),
                    sent.getLineage());
            return sent;
        } catch (final ProducerFencedException e) {
            throw new IllegalStateException(
                    "another `rwml model init` of run '"
                            + channel.run()
                            + "' started meanwhile and took over; nothing was published by this"
                            + " one: check `rwml models list --run "
                            + channel.run()
                            + "`",
                    e);
        } catch (final KafkaException e) {
            producer.abortTransaction();
            throw e;
        }
    }
}
