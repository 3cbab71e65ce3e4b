package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.cli.RwmlProcesses.Cluster;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.worldmodel.hf.HfFixtures;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code rwml predict --set sampler=remote} against {@code rwml serve}, each its own process,
 * writes the groups in-process sampling writes, and follows the run's LoRA versions: two prediction
 * stages of one run (a Hugging Face checkpoint with a LoRA adapter, the tiny Qwen2 fixture), one
 * sampling through the server and one in-process (each its own application id, one transition per
 * batch so both seed each batch alike), predict the same transitions into the run's predictions
 * topic. While they run, the trainer publishes LoRA versions; for each the remote stage writes its
 * PEFT adapter to {@code sampler.adapter.dir}, has the server load it ({@code POST
 * /v1/load_lora_adapter}) and stamps the next groups with the version the server answered with,
 * which again match in-process sampling of that version.
 */
@Tag("system")
class RemoteSamplingIT {

    private static final String RUN = "remote";
    private static final Pattern ADDRESS = Pattern.compile("at (http://\\S+)/v1");
    private static final String STAGE =
            "predict --run "
                    + RUN
                    + " --set group.size=3 --set batch.size=1 --set sampling.max.new.tokens=16"
                    + " --set prompt.max.tokens=1000 --set start.from=earliest";

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("remote-sampling");

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void shouldSampleAsInProcessThroughTheServerAndStampTheLoraVersionItLoaded() throws Exception {
        final Cluster cluster = rwml.up("--run " + RUN);
        rwml.runToEnd("env", "env run --env alfworld --agents 1 --episodes 1 --seed 3");
        final Path checkpoint = HfFixtures.chatCheckpoint(rwml.work().resolve("qwen2-tiny-chat"));
        rwml.runToEnd(
                "model-init",
                "model init --run " + RUN + " --from-hf " + checkpoint + " --lora r=4,alpha=8");
        final Child serve = rwml.start("serve", "serve --run " + RUN + " --port 0");
        await("rwml serve prints its address")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> running(serve) && address(serve) != null);
        final Path adapters = rwml.work().resolve("adapters");
        final Child remote =
                rwml.start(
                        "predict-remote",
                        STAGE
                                + " --set application.id=rwml-remote-through-server --set sampler=remote"
                                + " --set sampler.url="
                                + address(serve)
                                + " --set sampler.adapter.dir="
                                + adapters);
        final Child local =
                rwml.start("predict-local", STAGE + " --set application.id=rwml-remote-in-process");
        final Set<String> first = ids(transitions(cluster));
        awaitPredicted(cluster, 2L * first.size(), serve, remote, local);
        assertSameSamples(groups(cluster), 0);

        // LoRA version 1 while both stages run: the SFT objective trains on any group
        final Child reward = rwml.start("reward", "reward --run " + RUN);
        final Child train =
                rwml.start(
                        "train",
                        "train --device cpu --run "
                                + RUN
                                + " --set objective=sft --set groups.per.step=1"
                                + " --set publish.every.steps=1 --set learning.rate=1e-2");
        await("version 1 loaded by the server for the remote stage and by the in-process one")
                .atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofSeconds(1))
                .until(
                        () ->
                                running(serve, remote, local, reward, train)
                                        && Files.readString(remote.log())
                                                .contains("version 1 loaded into")
                                        // both stages log to predict.log
                                        && occurrences(
                                                        Files.readString(local.log()),
                                                        "loaded version 1 of run " + RUN)
                                                == 2);
        // no newer version once the trainer stops: both stages sample the newest one
        RwmlProcesses.stop(List.of(train, reward));
        final long newest = newestVersion(cluster);
        await("version " + newest + " loaded by the server for the remote stage and in-process")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofSeconds(1))
                .until(
                        () ->
                                running(serve, remote, local)
                                        && Files.readString(remote.log())
                                                .contains("version " + newest + " loaded into")
                                        && occurrences(
                                                        Files.readString(local.log()),
                                                        "loaded version "
                                                                + newest
                                                                + " of run "
                                                                + RUN)
                                                == 2);
        assertThat(adapters.resolve(RUN + "-v" + newest).resolve("adapter_config.json"))
                .as("the newest version's PEFT adapter, written for the server")
                .exists();
        final String models = get(URI.create(address(serve) + "/v1/models"));
        assertThat(new ObjectMapper().readTree(models).findValuesAsText("id"))
                .as("the run and the version it serves")
                .containsExactly(RUN, RUN + "-v" + newest);

        rwml.runToEnd("env-later", "env run --env alfworld --agents 1 --episodes 1 --seed 4");
        final List<Transition> all = transitions(cluster);
        awaitPredicted(cluster, 2L * all.size(), serve, remote, local);
        final Set<String> later = ids(all);
        later.removeAll(first);
        assertThat(later).isNotEmpty();
        final List<PredictionGroup> laterGroups =
                groups(cluster).stream().filter(g -> later.contains(g.getTransitionId())).toList();
        assertSameSamples(laterGroups, newest);
        assertThat(Files.readString(serve.log()))
                .as("rwml serve followed the run to the LoRA version")
                .contains("loaded version 1 of run " + RUN);

        // The run's model as the agent, its actions sampled by the server.
        final Child act =
                rwml.runToEnd(
                        "env-model",
                        "env run --env alfworld --episodes 1 --seed 5 --policy model --run "
                                + RUN
                                + " --sampler-url "
                                + address(serve)
                                + " --sampler-adapter-dir "
                                + adapters
                                + " --max-new-tokens 8");
        assertThat(Files.readString(act.log()))
                .contains(
                        "Run "
                                + RUN
                                + ": sampling through the inference server at "
                                + address(serve));
        final List<Transition> acted =
                transitions(cluster).stream()
                        .filter(t -> t.getPolicy().getName().equals("model"))
                        .sorted(Comparator.comparingInt(Transition::getStep))
                        .toList();
        assertThat(acted).as("the model agent's steps").isNotEmpty();
        assertThat(acted)
                .extracting(t -> t.getPolicy().getModelVersion())
                .doesNotContainNull()
                .allSatisfy(v -> assertThat(v).isBetween(0L, newest))
                .isSorted();
    }

    private static Set<String> ids(final List<Transition> transitions) {
        return transitions.stream()
                .map(Transition::getTransitionId)
                .collect(Collectors.toCollection(HashSet::new));
    }

    private static long newestVersion(final Cluster cluster) {
        return RwmlProcesses.readCommitted(
                        cluster.bootstrap(),
                        TopicCatalog.defaults().run(RUN).models().name(),
                        TopicCatalog.defaults()
                                .run(RUN)
                                .models()
                                .valueSerde(EventSerdes.registryConfig(cluster.registry()))
                                .deserializer())
                .stream()
                .mapToLong(ModelVersion::getVersion)
                .max()
                .orElseThrow();
    }

    private static int occurrences(final String text, final String part) {
        int count = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            count++;
        }
        return count;
    }

    /**
     * Each transition predicted twice, through the server and in-process, by {@code version}, with
     * the same token ids, texts and log-probs (within 1e-4).
     */
    private static void assertSameSamples(final List<PredictionGroup> groups, final long version) {
        final Map<String, List<PredictionGroup>> byTransition =
                groups.stream().collect(Collectors.groupingBy(PredictionGroup::getTransitionId));
        assertThat(byTransition).isNotEmpty();
        for (final List<PredictionGroup> pair : byTransition.values()) {
            assertThat(pair).hasSize(2);
            final PredictionGroup a = pair.get(0);
            final PredictionGroup b = pair.get(1);
            assertThat(a.getModelVersion()).isEqualTo(b.getModelVersion()).isEqualTo(version);
            assertThat(a.getPromptTokenIds()).isEqualTo(b.getPromptTokenIds());
            assertThat(a.getSamples()).hasSize(3).hasSameSizeAs(b.getSamples());
            for (int i = 0; i < a.getSamples().size(); i++) {
                final PredictionSample x = a.getSamples().get(i);
                final PredictionSample y = b.getSamples().get(i);
                assertThat(x.getTokenIds()).as(a.getTransitionId()).isEqualTo(y.getTokenIds());
                assertThat(x.getText()).isEqualTo(y.getText());
                assertThat(x.getLogprobs()).hasSameSizeAs(y.getLogprobs());
                for (int t = 0; t < x.getLogprobs().size(); t++) {
                    assertThat((double) x.getLogprobs().get(t))
                            .as("%s sample %d token %d", a.getTransitionId(), i, t)
                            .isCloseTo(y.getLogprobs().get(t), offset(1e-4));
                }
            }
        }
    }

    private static void awaitPredicted(
            final Cluster cluster, final long groups, final Child... stages) {
        final String topic = TopicCatalog.defaults().run(RUN).predictions().name();
        await("both stages predict every transition")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .until(
                        () ->
                                running(stages)
                                        && RwmlProcesses.committedRecords(
                                                        cluster.bootstrap(), topic)
                                                >= groups);
    }

    private static List<Transition> transitions(final Cluster cluster) {
        return RwmlProcesses.readCommitted(
                cluster.bootstrap(),
                TopicCatalog.TRANSITIONS,
                TopicCatalog.defaults()
                        .transitions()
                        .valueSerde(EventSerdes.registryConfig(cluster.registry()))
                        .deserializer());
    }

    private static List<PredictionGroup> groups(final Cluster cluster) {
        return RwmlProcesses.readCommitted(
                cluster.bootstrap(),
                TopicCatalog.defaults().run(RUN).predictions().name(),
                EventSerdes.forValue(
                                PredictionGroup.class,
                                EventSerdes.registryConfig(cluster.registry()))
                        .deserializer());
    }

    private static String get(final URI uri) throws Exception {
        return HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static String address(final Child serve) throws Exception {
        final Matcher m = ADDRESS.matcher(Files.readString(serve.out()));
        return m.find() ? m.group(1) : null;
    }
}
