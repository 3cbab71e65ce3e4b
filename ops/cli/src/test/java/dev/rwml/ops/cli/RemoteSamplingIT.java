package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.PredictionGroup;
import dev.rwml.events.PredictionSample;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.ops.cli.RwmlProcesses.Cluster;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * writes the groups in-process sampling writes: two prediction stages of one run, one sampling
 * through the server and one in-process (each its own application id, one transition per batch so
 * both seed each batch alike), predict the same transitions into the run's predictions topic.
 */
@Tag("system")
class RemoteSamplingIT {

    private static final String RUN = "remote";
    private static final Pattern ADDRESS = Pattern.compile("at (http://\\S+)/v1");
    private static final String STAGE =
            "predict --run "
                    + RUN
                    + " --set group.size=3 --set batch.size=1 --set sampling.max.new.tokens=16"
                    + " --set start.from=earliest";

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("remote-sampling");

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void shouldWriteTheSamplesAndLogProbsOfInProcessSamplingThroughTheServer() throws Exception {
        final Cluster cluster = rwml.up("--run " + RUN);
        rwml.runToEnd("env", "env run --env alfworld --agents 1 --episodes 2 --seed 3");
        rwml.runToEnd("model-init", "model init --run " + RUN + " --size tiny --steps 5");
        final long transitions =
                RwmlProcesses.committedRecords(cluster.bootstrap(), TopicCatalog.TRANSITIONS);
        final Child serve = rwml.start("serve", "serve --run " + RUN + " --port 0");
        await("rwml serve prints its address")
                .atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> running(serve) && address(serve) != null);

        final Child remote =
                rwml.start(
                        "predict-remote",
                        STAGE
                                + " --set application.id=rwml-remote-through-server --set sampler=remote"
                                + " --set sampler.url="
                                + address(serve));
        final Child local =
                rwml.start("predict-local", STAGE + " --set application.id=rwml-remote-in-process");
        final String topic = TopicCatalog.defaults().run(RUN).predictions().name();
        await("both stages predict every transition")
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(
                        () ->
                                running(serve, remote, local)
                                        && RwmlProcesses.committedRecords(
                                                        cluster.bootstrap(), topic)
                                                >= 2 * transitions);

        final List<PredictionGroup> groups =
                RwmlProcesses.readCommitted(
                        cluster.bootstrap(),
                        topic,
                        EventSerdes.forValue(
                                        PredictionGroup.class,
                                        EventSerdes.registryConfig(cluster.registry()))
                                .deserializer());
        final Map<String, List<PredictionGroup>> byTransition =
                groups.stream().collect(Collectors.groupingBy(PredictionGroup::getTransitionId));
        assertThat(byTransition).hasSize((int) transitions);
        for (final List<PredictionGroup> pair : byTransition.values()) {
            assertThat(pair).hasSize(2);
            final PredictionGroup a = pair.get(0);
            final PredictionGroup b = pair.get(1);
            assertThat(a.getModelVersion()).isEqualTo(b.getModelVersion()).isZero();
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

    private static String address(final Child serve) throws Exception {
        final Matcher m = ADDRESS.matcher(Files.readString(serve.out()));
        return m.find() ? m.group(1) : null;
    }
}
