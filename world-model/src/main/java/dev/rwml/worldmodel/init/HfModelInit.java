package dev.rwml.worldmodel.init;

import dev.rwml.events.ModelVersion;
import dev.rwml.events.TrainingCounters;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.channel.ModelChannel;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfConfig;
import dev.rwml.worldmodel.hf.LoraConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Initialises a run from a pretrained Hugging Face checkpoint ({@code rwml model init --from-hf
 * DIR}): checks that its config, weights and tokenizer load, and publishes its files unchanged as
 * version 0 in the {@link HfCheckpoint} format, in one Kafka transaction, with objective {@code
 * init} and an empty lineage (it was trained on nothing of this log, so the prediction stage's
 * {@code after-base} start reads the transitions from the beginning).
 *
 * <p>As with {@link BaseModelInit}, a run has exactly one version 0: init refuses a run that has
 * any version, and two inits of one run fence each other.
 */
public final class HfModelInit {

    private static final Logger LOG = LoggerFactory.getLogger(HfModelInit.class);

    private HfModelInit() {}

    /**
     * What to initialise.
     *
     * @param run the run name
     * @param kafkaConfig {@code bootstrap.servers} and the cluster's security settings
     * @param registryConfig the serdes' registry settings
     * @param checkpointDir the Hugging Face checkpoint directory
     * @param lora the adapters the trainer trains over this frozen version 0, or empty to train
     *     every weight
     * @param timeout the longest one read of the cluster may take
     */
    public record Config(
            String run,
            Map<String, ?> kafkaConfig,
            Map<String, ?> registryConfig,
            Path checkpointDir,
            Optional<LoraConfig> lora,
            Duration timeout) {

        public Config {
            Objects.requireNonNull(run, "run");
            kafkaConfig = Map.copyOf(kafkaConfig);
            registryConfig = Map.copyOf(registryConfig);
            Objects.requireNonNull(checkpointDir, "checkpointDir");
            Objects.requireNonNull(lora, "lora");
            Objects.requireNonNull(timeout, "timeout");
        }
    }

    /** Publishes the checkpoint as version 0 and returns the manifest as sent. */
    public static ModelVersion run(final Config config) {
        final HfCheckpoint read = HfCheckpoint.fromDirectory(config.checkpointDir(), 0);
        final HfCheckpoint checkpoint = config.lora().map(read::withLora).orElse(read);
        final HfConfig hf = HfConfig.load(config.checkpointDir());
        final Map<String, String> modelConfig = new LinkedHashMap<>(hf.toManifestMap());
        config.lora().ifPresent(l -> modelConfig.put("lora", l.toString()));
        final TopicCatalog catalog = TopicCatalog.defaults();
        BaseModelInit.ensureTopics(config.kafkaConfig(), config.run(), catalog);
        try (ModelChannel channel =
                        new ModelChannel(
                                catalog.run(config.run()),
                                config.kafkaConfig(),
                                config.registryConfig());
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
                            .setCounters(
                                    TrainingCounters.newBuilder().setSteps(0).setTokens(0).build())
                            .setMetrics(Map.of())
                            .setLineage(List.of())
                            .setModelConfig(modelConfig)
                            .setTrainerConfig(trainerConfig(config));
            final ModelVersion sent =
                    BaseModelInit.publish(
                            channel, producer, manifest, HfCheckpoint.FORMAT, checkpoint.toBytes());
            LOG.info("Run {} initialised from {}", config.run(), config.checkpointDir());
            return sent;
        }
    }

    private static Map<String, String> trainerConfig(final Config config) {
        final Map<String, String> m = new LinkedHashMap<>();
        m.put("objective", "init");
        m.put("fromHf", config.checkpointDir().toAbsolutePath().toString());
        config.lora().ifPresent(l -> m.put("lora", l.toString()));
        return m;
    }
}
