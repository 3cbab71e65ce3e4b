package dev.rwml.channel.init;

import ai.djl.ndarray.NDManager;
import dev.rwml.channel.ModelChannel;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.TrainingCounters;
import dev.rwml.events.Transition;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfConfig;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.LoraAdapter;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.model.Tensor;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.prompt.SftTarget;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Initialises a run from a pretrained Hugging Face checkpoint ({@code rwml model init --from-hf
 * DIR}): checks that its config, weights and tokenizer load and publishes it as version 0 in the
 * {@link HfCheckpoint} format, in one Kafka transaction, with objective {@code init}.
 *
 * <p>Without SFT steps the checkpoint's files go out unchanged with an empty lineage (it was
 * trained on nothing of this log, so the prediction stage's {@code after-base} start reads the
 * transitions from the beginning). With an {@link Sft} it first reads a pretraining slice of {@code
 * rwml.transitions} as {@link BaseModelInit} does and teaches the model the answer format on it:
 * cross-entropy of {@link SftTarget}'s {@code <think></think><next_state>s'</next_state>} and the
 * checkpoint's end of turn (the trainer's WM-SFT target too) after each transition's chat prompt,
 * built as the prediction stage builds it. Every weight is trained, or with LoRA an adapter that is
 * merged into the weights before publishing, so version 0 is always a plain checkpoint (with LoRA,
 * the frozen base of the run's adapters). Its lineage is then the slice, so the prediction stage
 * starts after it.
 *
 * <p>As with {@link BaseModelInit}, a run has exactly one version 0: init refuses a run that has
 * any version, and two inits of one run fence each other.
 */
public final class HfModelInit {

    private static final Logger LOG = LoggerFactory.getLogger(HfModelInit.class);

    /** SFT examples per step. */
    private static final int BATCH_SIZE = 4;

    private HfModelInit() {}

    /**
     * The SFT on a pretraining slice before publishing.
     *
     * @param steps SFT steps, at least 1
     * @param learningRate AdamW's peak learning rate
     * @param maxTransitions the most transitions in the slice
     * @param envs environment names to train on; empty means every environment
     * @param promptTokens the prompt budget, as the prediction stage's {@code prompt.max.tokens}
     * @param seed shuffling and the adapter's initialisation
     */
    public record Sft(
            int steps,
            double learningRate,
            int maxTransitions,
            Set<String> envs,
            int promptTokens,
            long seed) {

        public Sft {
            if (steps <= 0 || maxTransitions <= 0 || promptTokens <= 0 || !(learningRate > 0)) {
                throw new IllegalArgumentException(
                        "steps, maxTransitions, promptTokens and learningRate must be positive,"
                                + " got "
                                + steps
                                + ", "
                                + maxTransitions
                                + ", "
                                + promptTokens
                                + " and "
                                + learningRate);
            }
            envs = Set.copyOf(envs);
        }
    }

    /**
     * What to initialise.
     *
     * @param run the run name
     * @param connection the cluster and registry, with their security settings
     * @param checkpointDir the Hugging Face checkpoint directory
     * @param lora the adapters the trainer trains over this frozen version 0, or empty to train
     *     every weight
     * @param sft the SFT on a pretraining slice before publishing; empty: the checkpoint as it is
     * @param timeout the longest one read of the cluster may take
     */
    public record Config(
            String run,
            Connection connection,
            Path checkpointDir,
            Optional<LoraConfig> lora,
            Optional<Sft> sft,
            Duration timeout) {

        public Config {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(connection, "connection");
            Objects.requireNonNull(checkpointDir, "checkpointDir");
            Objects.requireNonNull(lora, "lora");
            Objects.requireNonNull(sft, "sft");
            Objects.requireNonNull(timeout, "timeout");
        }
    }

    /**
     * Publishes the checkpoint as version 0 and returns the manifest as sent; {@code listener}
     * hears of the slice and the SFT steps (the caller has the manifest).
     */
    public static ModelVersion run(final Config config, final BaseModelInit.Listener listener) {
        final HfCheckpoint read = HfCheckpoint.fromDirectory(config.checkpointDir(), 0);
        final HfConfig hf = HfConfig.load(config.checkpointDir());
        final Map<String, String> modelConfig = new LinkedHashMap<>(hf.toManifestMap());
        config.lora().ifPresent(l -> modelConfig.put("lora", l.toString()));
        final TopicCatalog catalog = TopicCatalog.defaults();
        BaseModelInit.ensureTopics(config.connection(), config.run(), catalog);
        try (ModelChannel channel = ModelChannel.of(config.connection(), config.run());
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(channel.producerConfig("rwml-init-" + config.run()))) {
            producer.initTransactions();
            BaseModelInit.refuseIfInitialised(channel, config.timeout());
            final ModelVersion.Builder manifest =
                    ModelVersion.newBuilder()
                            .setRun(config.run())
                            .setVersion(0)
                            .setParentVersion(null)
                            .setCreatedAt(Instant.now())
                            .setObjective("init")
                            .setModelConfig(modelConfig)
                            .setTrainerConfig(trainerConfig(config));
            HfCheckpoint checkpoint = read;
            if (config.sft().isEmpty()) {
                manifest.setCounters(TrainingCounters.newBuilder().setSteps(0).setTokens(0).build())
                        .setMetrics(Map.of())
                        .setLineage(List.of());
            } else {
                final Sft sft = config.sft().get();
                final PretrainingSlice slice =
                        BaseModelInit.readSlice(
                                config.connection(),
                                config.run(),
                                sft.maxTransitions(),
                                sft.envs(),
                                config.timeout());
                listener.sliceRead(slice);
                final Trained trained = train(config, sft, slice, listener);
                checkpoint = read.withWeights(0, trained.weights(), Map.of());
                manifest.setCounters(BaseModelInit.counters(trained.history()))
                        .setMetrics(
                                BaseModelInit.sftMetrics(
                                        trained.history(),
                                        slice,
                                        trained.examples(),
                                        trained.skipped()))
                        .setLineage(slice.lineage());
            }
            final ModelVersion sent =
                    BaseModelInit.publish(
                            channel,
                            producer,
                            manifest,
                            HfCheckpoint.FORMAT,
                            config.lora().map(checkpoint::withLora).orElse(checkpoint).toBytes());
            LOG.info("Run {} initialised from {}", config.run(), config.checkpointDir());
            return sent;
        }
    }

    /** The weights after SFT (an adapter merged in), the steps' metrics, the pairs' counts. */
    private record Trained(
            Map<String, Tensor> weights, List<StepMetrics> history, int examples, int skipped) {}

    /**
     * The SFT example of a transition: its chat prompt within {@code promptTokens}, built as the
     * prediction stage builds it, and {@link SftTarget}'s ids; empty when they do not fit the
     * checkpoint's context together.
     */
    public static Optional<SequenceBatch.Pair> pair(
            final HfModel model, final Transition transition, final int promptTokens) {
        final int[] prompt =
                model.prompt(PromptFormat.standard(), PromptView.of(transition), promptTokens)
                        .tokenIds();
        final int[] target = SftTarget.ids(model.tokenizer(), transition.getNextObservation());
        if (prompt.length + target.length > model.decoder().maxContext()) {
            return Optional.empty();
        }
        return Optional.of(new SequenceBatch.Pair(prompt, target));
    }

    private static Trained train(
            final Config config,
            final Sft sft,
            final PretrainingSlice slice,
            final BaseModelInit.Listener listener) {
        try (NDManager manager = DjlRuntime.newManager();
                HfModel model = HfModel.load(config.checkpointDir(), manager)) {
            final HfDecoder base = model.decoder();
            final List<SequenceBatch.Pair> pairs = new ArrayList<>();
            int skipped = 0;
            for (final Transition t : slice.transitions()) {
                final Optional<SequenceBatch.Pair> pair = pair(model, t, sft.promptTokens());
                if (pair.isPresent()) {
                    pairs.add(pair.get());
                } else {
                    skipped++;
                }
            }
            if (pairs.isEmpty()) {
                throw new IllegalStateException(
                        "none of the "
                                + slice.transitions().size()
                                + " transitions fits the checkpoint's context of "
                                + base.maxContext()
                                + " tokens with its answer: lower --prompt-max-tokens");
            }
            Collections.shuffle(pairs, new Random(sft.seed()));
            final HfDecoder policy =
                    config.lora()
                            .map(
                                    l ->
                                            base.withAdapter(
                                                    LoraAdapter.create(
                                                            base.config(), l, sft.seed(), manager)))
                            .orElse(base);
            final TrainConfig train =
                    new TrainConfig(
                            sft.learningRate(),
                            0.0,
                            0.9,
                            0.999,
                            1e-8,
                            1.0,
                            Math.min(10, Math.max(1, sft.steps() / 10)),
                            0,
                            TrainConfig.Schedule.CONSTANT,
                            1.0);
            try (Trainer trainer = new Trainer(policy, null, train, model.tokenizer().padId())) {
                final List<StepMetrics> history = new ArrayList<>();
                for (int step = 0; step < sft.steps(); step++) {
                    final List<SequenceBatch.Pair> batch = new ArrayList<>(BATCH_SIZE);
                    for (int i = 0; i < BATCH_SIZE; i++) {
                        batch.add(pairs.get((step * BATCH_SIZE + i) % pairs.size()));
                    }
                    final StepMetrics m = trainer.sftStep(batch);
                    history.add(m);
                    listener.step(m, sft.steps());
                }
                // an adapter view's tensors are the base's with the adapter merged in
                return new Trained(policy.toTensors(), history, pairs.size(), skipped);
            } finally {
                if (policy != base) {
                    policy.close();
                }
            }
        }
    }

    private static Map<String, String> trainerConfig(final Config config) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("objective", "init");
        m.put("fromHf", config.checkpointDir().toAbsolutePath().toString());
        config.lora().ifPresent(l -> m.put("lora", l.toString()));
        if (config.sft().isPresent()) {
            final Sft sft = config.sft().get();
            m.put("steps", Integer.toString(sft.steps()));
            m.put("batchSize", Integer.toString(BATCH_SIZE));
            m.put("learningRate", Double.toString(sft.learningRate()));
            m.put("maxTransitions", Integer.toString(sft.maxTransitions()));
            m.put("envs", sft.envs().isEmpty() ? "*" : String.join(",", new TreeSet<>(sft.envs())));
            m.put("promptMaxTokens", Integer.toString(sft.promptTokens()));
            m.put("seed", Long.toString(sft.seed()));
        }
        return m;
    }
}
