package dev.rwml.channel.init;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.channel.ModelChannel;
import dev.rwml.channel.ModelChannelReader;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.Transition;
import dev.rwml.ops.embedded.KafkaStack;
import dev.rwml.ops.embedded.TestClients;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerde;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicAdmin;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.DjlRuntime;
import dev.rwml.worldmodel.TestCorpus;
import dev.rwml.worldmodel.hf.HfCheckpoint;
import dev.rwml.worldmodel.hf.HfDecoder;
import dev.rwml.worldmodel.hf.HfFixtures;
import dev.rwml.worldmodel.hf.HfModel;
import dev.rwml.worldmodel.hf.LoraConfig;
import dev.rwml.worldmodel.train.StepMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code rwml model init --from-hf --steps} on the embedded broker and registry. */
class HfModelInitIT {

    // a cluster of its own: BaseModelInitIT counts every transition of the shared one
    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embeddedFresh();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int TRANSITIONS = 8;

    @TempDir static Path dir;

    private static Path checkpoint;

    /**
     * The tiny Qwen2 fixture with 1024 positions (its 128 hold no prompt with an answer; rotary
     * positions have no learned table, so the weights are unchanged) and household transitions.
     */
    @BeforeAll
    static void checkpointAndTransitions() throws Exception {
        checkpoint = Files.createDirectories(dir.resolve("qwen2-tiny"));
        try (var files = Files.list(HfFixtures.checkpoint("qwen2-tiny"))) {
            for (final Path p : files.toList()) {
                Files.copy(p, checkpoint.resolve(p.getFileName()));
            }
        }
        final ObjectMapper json = new ObjectMapper();
        final ObjectNode config =
                (ObjectNode) json.readTree(checkpoint.resolve("config.json").toFile());
        config.put("max_position_embeddings", 1024);
        json.writeValue(checkpoint.resolve("config.json").toFile(), config);

        final TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = KAFKA.admin()) {
            new TopicAdmin(admin, catalog).ensure(catalog.shared());
        }
        try (EventSerde<Transition> serde =
                        catalog.transitions()
                                .valueSerde(EventSerdes.registryConfig(KAFKA.schemaRegistryUrl()));
                KafkaProducer<String, Transition> producer =
                        TestClients.producer(
                                KAFKA.bootstrapServers(),
                                new StringSerializer(),
                                serde.serializer())) {
            for (final Transition t : TestCorpus.alfworld(TRANSITIONS)) {
                producer.send(
                                new ProducerRecord<>(
                                        TopicCatalog.TRANSITIONS, t.getTransitionId(), t))
                        .get();
            }
        }
    }

    private static HfModelInit.Config config(
            final String run,
            final Optional<LoraConfig> lora,
            final Optional<HfModelInit.Sft> sft) {
        return new HfModelInit.Config(
                run,
                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()),
                checkpoint,
                lora,
                sft,
                WAIT);
    }

    /**
     * Version 0 as a reader of the run's channel gets it: the commit's markers reach the topics
     * just after init returns, so the read is retried until it sees them.
     */
    private static HfCheckpoint versionZero(final String run) {
        final HfCheckpoint[] read = new HfCheckpoint[1];
        await("version 0 of run " + run)
                .atMost(WAIT)
                .ignoreExceptions()
                .until(
                        () -> {
                            read[0] = fetchVersionZero(run);
                            return true;
                        });
        return read[0];
    }

    private static HfCheckpoint fetchVersionZero(final String run) throws Exception {
        try (ModelChannel channel =
                        ModelChannel.of(
                                Connection.of(KAFKA.bootstrapServers(), KAFKA.schemaRegistryUrl()),
                                run);
                ModelChannelReader reader =
                        new ModelChannelReader(channel, Optional.empty(), WAIT)) {
            return HfCheckpoint.fromBytes(reader.fetch(0).bytes());
        }
    }

    @Test
    void shouldPublishTheCheckpointAsItIsWithoutSteps() throws Exception {
        final ModelVersion sent =
                HfModelInit.run(
                        config("as-is", Optional.empty(), Optional.empty()),
                        BaseModelInit.Listener.NONE);

        assertThat(sent.getLineage()).as("trained on none of the log").isEmpty();
        assertThat(sent.getCounters().getSteps()).isZero();
        assertThat(versionZero("as-is").files().get("model.safetensors"))
                .isEqualTo(Files.readAllBytes(checkpoint.resolve("model.safetensors")));
    }

    @Test
    void shouldTeachTheAnswerFormatOnTheSliceAndMergeTheLoraAdapterIntoVersionZero()
            throws Exception {
        final List<StepMetrics> steps = new CopyOnWriteArrayList<>();
        final BaseModelInit.Listener listener =
                new BaseModelInit.Listener() {
                    @Override
                    public void step(final StepMetrics metrics, final int totalSteps) {
                        steps.add(metrics);
                    }
                };
        final LoraConfig lora = LoraConfig.parse("r=4,targets=q+v");

        final ModelVersion sent =
                HfModelInit.run(
                        config(
                                "sft",
                                Optional.of(lora),
                                Optional.of(new HfModelInit.Sft(6, 1e-2, 100, Set.of(), 256, 3))),
                        listener);

        assertThat(steps).hasSize(6);
        assertThat(steps.get(5).loss()).as("the loss went down").isLessThan(steps.get(0).loss());
        assertThat(sent.getCounters().getSteps()).isEqualTo(6);
        assertThat(sent.getMetrics()).containsEntry("transitions", (double) TRANSITIONS);
        assertThat(sent.getLineage().stream().mapToLong(r -> r.getUntilOffset()).sum())
                .as("the slice is the lineage: the prediction stage starts after it")
                .isEqualTo(TRANSITIONS);
        assertThat(sent.getModelConfig()).containsEntry("lora", lora.toString());
        final HfCheckpoint published = versionZero("sft");
        assertThat(published.lora()).contains(lora);
        try (NDManager manager = DjlRuntime.newManager();
                HfDecoder before = HfDecoder.load(checkpoint, manager);
                HfModel after = HfModel.open(published, manager)) {
            final var was = before.toTensors();
            final var now = after.decoder().toTensors();
            assertThat(now.keySet()).isEqualTo(was.keySet());
            // the adapter on q and v, merged: those moved, nothing else did
            for (final String name : was.keySet()) {
                final boolean adapted =
                        name.endsWith("q_proj.weight") || name.endsWith("v_proj.weight");
                if (adapted) {
                    assertThat(now.get(name).data()).as(name).isNotEqualTo(was.get(name).data());
                } else {
                    assertThat(now.get(name).data()).as(name).isEqualTo(was.get(name).data());
                }
            }
        }
    }
}
