package dev.rwml.ops.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.channel.ModelSlot;
import dev.rwml.prediction.PredictionMetrics;
import dev.rwml.reward.RewardMetrics;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.embed.TextEmbedder;
import dev.rwml.scoring.group.KeepDecision;
import dev.rwml.trainer.GroupVerdict;
import dev.rwml.trainer.TrainerMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the stages agree: every {@code rwml_*} and {@code cache_*} series a
 * panel queries, and every cache it names, is one that the stages' meter classes export through
 * Prometheus.
 */
class DashboardMetricsTest {

    private static final Path DASHBOARD = Path.of("..", "grafana", "rwml.json");
    private static final Pattern SERIES = Pattern.compile("(?:rwml|cache)_[a-z_]+");
    private static final Pattern CACHE = Pattern.compile("cache=\\\\?\"([a-z.]+)");

    @Test
    void shouldOnlyQuerySeriesThatTheStagesExport() throws Exception {
        final String scrape = scrape();
        final String dashboard = Files.readString(DASHBOARD);

        final Set<String> queried = matches(SERIES, 0, dashboard);
        assertThat(queried).hasSizeGreaterThan(20);
        assertThat(exportedSeries(scrape)).containsAll(queried);
        final Set<String> caches = matches(CACHE, 1, dashboard);
        assertThat(caches).isNotEmpty();
        assertThat(matches(CACHE, 1, scrape)).containsAll(caches);
    }

    private static Set<String> matches(final Pattern pattern, final int group, final String text) {
        final Set<String> found = new TreeSet<>();
        final Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(group));
        }
        return found;
    }

    /** The scrape of a registry on which every stage registered and used each of its meters. */
    private static String scrape() {
        final PrometheusMeterRegistry registry =
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final PredictionMetrics prediction = new PredictionMetrics(registry, "r", new ModelSlot());
        prediction.batch(4, 1_000_000, 64);
        prediction.historyTruncated();
        prediction.deadLetter("UNKNOWN_SCHEMA_ID", "rwml.transitions");
        prediction.skipped("too-long");
        final RewardMetrics reward = new RewardMetrics(registry, "r");
        reward.groupRewarded("INFORMATIVE", KeepDecision.INFORMATIVE, 0.5, Duration.ofMillis(3));
        reward.similarity("embedding-cosine", 0.8);
        reward.joinMiss();
        reward.late("predictions");
        reward.transitionFiltered();
        reward.deadLetter("PROCESSING", "rwml.r.predictions");
        new CachingEmbedder(new ConstantEmbedder(), 16)
                .bindTo(registry, RewardMetrics.EMBEDDING_CACHE, Tags.of("run", "r"));
        final TrainerMetrics trainer = new TrainerMetrics(registry, "r");
        trainer.version(0);
        for (final GroupVerdict verdict : GroupVerdict.values()) {
            trainer.dropped(verdict);
        }
        trainer.deadLettered("PROCESSING", "rwml.r.rewards");
        trainer.outageRetry();
        trainer.skippedCommit();
        trainer.step(Duration.ofMillis(5), 64);
        trainer.trained(4);
        trainer.published(1, Duration.ofMillis(7));
        return registry.scrape();
    }

    /** The series names in a scrape. */
    private static Set<String> exportedSeries(final String scrape) {
        final Set<String> names = new TreeSet<>();
        for (final String line : scrape.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** Unused vectors: only the cache's counters matter here. */
    private static final class ConstantEmbedder implements TextEmbedder {
        @Override
        public String modelName() {
            return "constant";
        }

        @Override
        public List<float[]> embedAll(final List<String> texts) {
            return texts.stream().map(t -> new float[] {1f}).toList();
        }
    }
}
