package dev.rwml.reward;

import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Transition;
import dev.rwml.schemas.registry.MockSchemaRegistry;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.TopicCatalog;
import dev.rwml.scoring.Fixtures;
import dev.rwml.scoring.embed.CachingEmbedder;
import dev.rwml.scoring.embed.MiniLmEmbedder;
import dev.rwml.scoring.embed.Vectors;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Figures for the reward stage (run with {@code mvn -Pbench -pl reward-stream test}): rewarded
 * groups/s through the topology against the embedding model alone on the same texts, the cache hit
 * rate on ALFWorld-like data, and the MiniLM cosines that a threshold must separate.
 */
class RewardBenchmark {

    private static final Logger LOG = LoggerFactory.getLogger(RewardBenchmark.class);
    private static final int GROUPS = 300;
    private static final int G = 8;

    /** Builds ALFWorld-like groups: observations repeat, predictions mix right and wrong ones. */
    private static List<String[]> workload() {
        final AlfworldTexts texts = new AlfworldTexts(11);
        final List<String> pool = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            pool.add(texts.observation());
        }
        final java.util.Random random = new java.util.Random(5);
        final List<String[]> groups = new ArrayList<>();
        for (int i = 0; i < GROUPS; i++) {
            final String[] g = new String[G + 1];
            g[0] = pool.get(random.nextInt(pool.size()));
            for (int s = 1; s <= G; s++) {
                final int pick = random.nextInt(4);
                g[s] =
                        pick == 0
                                ? g[0]
                                : pick == 1
                                        ? "Nothing happens."
                                        : pool.get(random.nextInt(pool.size()));
            }
            groups.add(g);
        }
        return groups;
    }

    @Test
    void streamThroughputAgainstTheModelAlone() {
        final List<String[]> groups = workload();
        final MiniLmEmbedder model = new MiniLmEmbedder();
        model.embedAll(List.of("warm up the model"));

        final long t0 = System.nanoTime();
        for (final String[] g : groups) {
            model.embedAll(Arrays.asList(g));
        }
        final double modelSeconds = (System.nanoTime() - t0) / 1e9;

        final CachingEmbedder cached = new CachingEmbedder(model, 50_000);
        final RewardConfig config =
                RewardConfig.defaults("bench", "unused:9092", "mock://reward-benchmark");
        final double streamSeconds = throughStream(groups, cached, config);
        final double exactSeconds =
                throughStream(
                        groups,
                        new CachingEmbedder(model, 0),
                        config.with(Map.of("reward.spec", "TEXT=exact")));
        final CachingEmbedder uncached = new CachingEmbedder(model, 0);
        final double uncachedSeconds = throughStream(groups, uncached, config);

        final double modelRate = GROUPS / modelSeconds;
        final double streamRate = GROUPS / streamSeconds;
        LOG.info(
                "reward benchmark: {} groups of G={}: model alone (one call per group, no cache)"
                        + " {} groups/s; through the topology with the cache {} groups/s;"
                        + " ratio stream/model {}; cache hit rate {} ({} model calls)",
                GROUPS,
                G,
                String.format("%.1f", modelRate),
                String.format("%.1f", streamRate),
                String.format("%.2f", streamRate / modelRate),
                String.format("%.3f", cached.stats().hitRate()),
                cached.stats().loadCount());
        LOG.info(
                "reward benchmark: through the topology without cache {} groups/s ({} model"
                        + " calls); with exact match (no model: the stream's own cost) {} groups/s",
                String.format("%.1f", GROUPS / uncachedSeconds),
                uncached.stats().loadCount(),
                String.format("%.1f", GROUPS / exactSeconds));
    }

    private static double throughStream(
            final List<String[]> groups,
            final CachingEmbedder embedder,
            final RewardConfig config) {
        final RewardMetrics metrics = new RewardMetrics(new SimpleMeterRegistry(), "bench");
        final Map<String, Object> registry = RewardApp.registryConfig(config);
        try (TopologyTestDriver driver =
                new TopologyTestDriver(
                        RewardTopology.build(
                                config,
                                RewardApp.wiring(config, registry),
                                RewardApp.rewarder(config, embedder, metrics),
                                metrics,
                                Clock.systemUTC()),
                        RewardApp.streamsProperties(config, metrics))) {
            final TestInputTopic<String, Transition> transitions =
                    driver.createInputTopic(
                            TopicCatalog.TRANSITIONS,
                            new StringSerializer(),
                            EventSerdes.forValue(Transition.class, registry).serializer());
            final TestInputTopic<String, PredictionGroup> predictions =
                    driver.createInputTopic(
                            "rwml.bench.predictions",
                            new StringSerializer(),
                            EventSerdes.forValue(PredictionGroup.class, registry).serializer());
            final TestOutputTopic<String, RewardedGroup> rewards =
                    driver.createOutputTopic(
                            "rwml.bench.rewards",
                            Serdes.String().deserializer(),
                            EventSerdes.forValue(RewardedGroup.class, registry).deserializer());
            final List<Transition> ts = new ArrayList<>();
            final List<PredictionGroup> ps = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                final String id = "alfworld/bench/" + i;
                ts.add(Fixtures.transition(id, "alfworld", groups.get(i)[0]));
                ps.add(Fixtures.group(id, Arrays.copyOfRange(groups.get(i), 1, G + 1)));
            }
            final long t0 = System.nanoTime();
            for (int i = 0; i < groups.size(); i++) {
                final Instant at = Instant.ofEpochMilli(1_000_000L + i);
                transitions.pipeInput(ts.get(i).getTransitionId(), ts.get(i), at);
                predictions.pipeInput(ps.get(i).getTransitionId(), ps.get(i), at);
            }
            final int out = rewards.readValuesToList().size();
            final double seconds = (System.nanoTime() - t0) / 1e9;
            if (out != groups.size()) {
                throw new IllegalStateException(
                        "expected " + groups.size() + " groups, got " + out);
            }
            return seconds;
        } finally {
            MockSchemaRegistry.dropScope("reward-benchmark");
        }
    }

    @Test
    void miniLmCosinesByCategory() {
        final MiniLmEmbedder model = new MiniLmEmbedder();
        final AlfworldTexts texts = new AlfworldTexts(3);
        final double[][] cos = new double[3][40];
        for (int i = 0; i < 40; i++) {
            final AlfworldTexts.Case c = i % 2 == 0 ? texts.openCase() : texts.arriveCase();
            final List<float[]> v =
                    model.embedAll(
                            List.of(c.anchor(), c.paraphrase(), c.sameTemplate(), c.other()));
            cos[0][i] = Vectors.cosine(v.get(0), v.get(1));
            cos[1][i] = Vectors.cosine(v.get(0), v.get(2));
            cos[2][i] = Vectors.cosine(v.get(0), v.get(3));
        }
        final String[] names = {"paraphrase", "same template, other items", "other observation"};
        for (int k = 0; k < 3; k++) {
            final double[] s = cos[k].clone();
            Arrays.sort(s);
            LOG.info(
                    "MiniLM cosine, {}: min {} median {} max {}",
                    names[k],
                    String.format("%.3f", s[0]),
                    String.format("%.3f", s[s.length / 2]),
                    String.format("%.3f", s[s.length - 1]));
        }
        for (final double threshold : new double[] {0.6, 0.7, 0.75, 0.8, 0.85, 0.9}) {
            LOG.info(
                    "threshold {}: paraphrases passing {} / 40, same-template passing {} / 40,"
                            + " other passing {} / 40",
                    threshold,
                    above(cos[0], threshold),
                    above(cos[1], threshold),
                    above(cos[2], threshold));
        }
    }

    private static int above(final double[] values, final double threshold) {
        int n = 0;
        for (final double v : values) {
            if (v > threshold) {
                n++;
            }
        }
        return n;
    }
}
