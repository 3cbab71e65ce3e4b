package dev.rwml.evaluation;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.events.Transition;
import dev.rwml.scoring.embed.MiniLmEmbedder;
import dev.rwml.scoring.score.ItemSetF1;
import dev.rwml.scoring.score.RewardMethod;
import dev.rwml.scoring.score.RewardSpec;
import dev.rwml.scoring.score.SimilarityScorer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Can a reward tell a right next state from a wrong one? Labelled pairs from held-out ALFWorld
 * transitions (valid_unseen, the epsilon expert's episodes): each observed next state that lists
 * two or more items, against the same state with its items in another order (a paraphrase: should
 * pass), with one item swapped for another of the catalogue, with every item swapped, and another
 * template's next state (all should fail). For the paper's cosine of MiniLM embeddings, exact match
 * and an item-set F1 (the listed items parsed and compared as sets): the mean score and the pass
 * rate at several thresholds per kind, the AUC of paraphrase against one-item swap, the threshold
 * at which 5% of one-item swaps pass and the paraphrases' pass rate there, and the time per pair.
 * Run with {@code mvn -B -o -Pbench -pl evaluation test -Dtest=RewardCalibrationBenchmark}.
 */
class RewardCalibrationBenchmark {

    private static final int EPISODES = Integer.getInteger("bench.episodes", 60);
    private static final double[] THRESHOLDS = {0.6, 0.7, 0.8, 0.85, 0.9, 0.95};
    private static final Pattern LIST = Pattern.compile("^(.*you see )(.+)\\.$");

    /** What a wrong or right candidate is. */
    enum Kind {
        PARAPHRASE,
        ONE_ITEM_SWAPPED,
        ALL_ITEMS_SWAPPED,
        OTHER_TEMPLATE
    }

    @Test
    void rewardsOnLabelledPairs() {
        final EnvironmentSource unseen = EnvKind.ALFWORLD.source("valid_unseen", Grammar.CURRENT);
        final EpisodeRunner runner =
                EpisodeRunner.withClock(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
        final List<Transition> transitions = new ArrayList<>();
        for (int n = 0; n < EPISODES; n++) {
            transitions.addAll(runner.run(unseen, new EpsilonExpertAgent(0.1, 0.1), "a", 11, n));
        }
        final Set<String> catalogue = new LinkedHashSet<>();
        final List<String> listed = new ArrayList<>();
        final List<String> unlisted = new ArrayList<>();
        for (final Transition t : transitions) {
            final List<String> items = ItemSetF1.items(t.getNextObservation());
            catalogue.addAll(items);
            if (items.size() >= 2) {
                listed.add(t.getNextObservation());
            } else if (items.isEmpty()) {
                unlisted.add(t.getNextObservation());
            }
        }
        final List<String> kinds = new ArrayList<>(catalogue);
        final Random random = new Random(5);
        final List<String> observed = new ArrayList<>();
        final Map<Kind, List<String>> candidates = new EnumMap<>(Kind.class);
        for (final Kind k : Kind.values()) {
            candidates.put(k, new ArrayList<>());
        }
        for (final String state : new LinkedHashSet<>(listed)) {
            final List<String> items = ItemSetF1.items(state);
            final List<String> shuffled = new ArrayList<>(items);
            while (shuffled.equals(items)) {
                Collections.shuffle(shuffled, random);
            }
            final List<String> one = new ArrayList<>(items);
            one.set(random.nextInt(one.size()), absent(kinds, items, random));
            final List<String> all = new ArrayList<>();
            for (int i = 0; i < items.size(); i++) {
                all.add(absent(kinds, items, random));
            }
            observed.add(state);
            candidates.get(Kind.PARAPHRASE).add(render(state, shuffled));
            candidates.get(Kind.ONE_ITEM_SWAPPED).add(render(state, one));
            candidates.get(Kind.ALL_ITEMS_SWAPPED).add(render(state, all));
            candidates.get(Kind.OTHER_TEMPLATE).add(unlisted.get(random.nextInt(unlisted.size())));
        }

        final SimilarityScorer scorer = new SimilarityScorer(new MiniLmEmbedder());
        final Map<String, BiFunction<String, String, Double>> methods = new LinkedHashMap<>();
        methods.put(
                "cosine (MiniLM, the paper's)",
                (o, p) -> scorer.similarities(RewardSpec.cosine(0.8), o, List.of(p))[0]);
        methods.put("exact match", (o, p) -> o.strip().equals(p.strip()) ? 1.0 : 0.0);
        methods.put(
                "item-set F1",
                (o, p) ->
                        scorer.similarities(
                                        new RewardSpec(RewardMethod.ITEM_SET_F1, 0.5),
                                        o,
                                        List.of(p))[0]);

        System.out.printf(
                Locale.ROOT,
                "RewardCalibrationBenchmark: %d observed next states with 2+ listed items, from %d"
                        + " transitions of %d valid_unseen episodes; %d catalogue items%n",
                observed.size(),
                transitions.size(),
                EPISODES,
                catalogue.size());
        for (final Map.Entry<String, BiFunction<String, String, Double>> method :
                methods.entrySet()) {
            final Map<Kind, double[]> scores = new EnumMap<>(Kind.class);
            final long started = System.nanoTime();
            for (final Kind k : Kind.values()) {
                final double[] s = new double[observed.size()];
                for (int i = 0; i < s.length; i++) {
                    s[i] = method.getValue().apply(observed.get(i), candidates.get(k).get(i));
                }
                scores.put(k, s);
            }
            final double msPerPair =
                    (System.nanoTime() - started) / 1e6 / (observed.size() * Kind.values().length);
            System.out.printf(Locale.ROOT, "%n%s (%.2f ms per pair)%n", method.getKey(), msPerPair);
            final StringBuilder header =
                    new StringBuilder(String.format("  %-18s %6s", "", "mean"));
            for (final double t : THRESHOLDS) {
                header.append(String.format(Locale.ROOT, "  >=%.2f", t));
            }
            System.out.println(header);
            for (final Kind k : Kind.values()) {
                final double[] s = scores.get(k);
                final StringBuilder row =
                        new StringBuilder(
                                String.format(
                                        Locale.ROOT,
                                        "  %-18s %6.3f",
                                        k.name().toLowerCase(Locale.ROOT),
                                        Arrays.stream(s).average().orElse(Double.NaN)));
                for (final double t : THRESHOLDS) {
                    row.append(String.format(Locale.ROOT, "  %5.2f", passRate(s, t)));
                }
                System.out.println(row);
            }
            final double[] right = scores.get(Kind.PARAPHRASE);
            final double[] wrong = scores.get(Kind.ONE_ITEM_SWAPPED);
            final double at5 = thresholdPassing(wrong, 0.05);
            System.out.printf(
                    Locale.ROOT,
                    "  AUC paraphrase vs one item swapped: %.3f; threshold passing <= 5%% of"
                            + " one-item swaps: %.3f, where %.2f of paraphrases pass%n",
                    auc(right, wrong),
                    at5,
                    passRate(right, at5));
        }
    }

    /** The observation with its list replaced by {@code items}, written as the environment does. */
    private static String render(final String observation, final List<String> items) {
        final Matcher m = LIST.matcher(observation.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("no list in " + observation);
        }
        final StringBuilder list = new StringBuilder();
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                list.append(i == items.size() - 1 ? ", and " : ", ");
            }
            list.append("a ").append(items.get(i));
        }
        return m.group(1) + list + ".";
    }

    private static String absent(
            final List<String> catalogue, final List<String> present, final Random random) {
        while (true) {
            final String item = catalogue.get(random.nextInt(catalogue.size()));
            if (!present.contains(item)) {
                return item;
            }
        }
    }

    private static double passRate(final double[] scores, final double threshold) {
        return Arrays.stream(scores).filter(s -> s >= threshold).count() / (double) scores.length;
    }

    /** The lowest threshold at which at most {@code rate} of {@code wrong} pass. */
    private static double thresholdPassing(final double[] wrong, final double rate) {
        final double[] sorted = wrong.clone();
        Arrays.sort(sorted);
        final int allowed = (int) Math.floor(rate * sorted.length);
        // Scores at or above sorted[n - allowed] would pass more than allowed: go just above the
        // next one down.
        return Math.nextUp(sorted[sorted.length - allowed - 1]);
    }

    /** The probability that a right candidate scores above a wrong one, ties counting half. */
    private static double auc(final double[] right, final double[] wrong) {
        double wins = 0;
        for (final double r : right) {
            for (final double w : wrong) {
                wins += r > w ? 1 : r == w ? 0.5 : 0;
            }
        }
        return wins / ((double) right.length * wrong.length);
    }
}
