package dev.rwml.evaluation;

import dev.rwml.env.EnvKind;
import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.PolicyKind;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.recorded.MalformedLineException;
import dev.rwml.env.recorded.TrajectoryParser;
import dev.rwml.env.tau2.Splits;
import dev.rwml.events.Transition;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Held-out transitions that never went to Kafka: episodes of a held-out split run here (ALFWorld
 * {@code valid_seen} / {@code valid_unseen}, the tau2 desks' {@code test}), or recorded
 * trajectories read from a JSONL file in the importer's format.
 *
 * @param name how the set is reported, e.g. {@code alfworld/valid_unseen}
 * @param transitions the transitions, in a fixed order
 */
public record HeldOutSet(String name, List<Transition> transitions) {

    /** The generated sets, by the name {@code --split} takes. */
    public static final List<String> SPLITS =
            List.of(
                    "alfworld/valid_seen",
                    "alfworld/valid_unseen",
                    "alfworld-older/valid_unseen",
                    "tau2/test",
                    "retail/test",
                    "airline/test");

    /** The agent id of held-out episodes (the demo's evaluation uses the same). */
    public static final String AGENT_ID = "held-out";

    public HeldOutSet {
        transitions = List.copyOf(transitions);
    }

    /** Held-out transitions drawn from one episode at most, unless a caller says otherwise. */
    public static final int DEFAULT_PER_EPISODE = 10;

    /**
     * {@code count} transitions of epsilon-expert episodes of a split, at most {@link
     * #DEFAULT_PER_EPISODE} from each episode; see {@link #generate(String, int, long, double,
     * int)}.
     */
    public static HeldOutSet generate(
            final String split, final int count, final long seed, final double epsilon) {
        return generate(split, count, seed, epsilon, DEFAULT_PER_EPISODE);
    }

    /**
     * {@code count} transitions of epsilon-expert episodes of a split, at most {@code
     * maxPerEpisode} from each episode, drawn at seeded steps spread over the episode (kept in step
     * order), so that the set spans at least {@code count / maxPerEpisode} episodes; the same seed
     * gives the same set. {@code tau2/test} alternates retail and airline episodes.
     *
     * @throws IllegalArgumentException naming the valid splits, or when {@code maxPerEpisode} is
     *     below 1
     */
    public static HeldOutSet generate(
            final String split,
            final int count,
            final long seed,
            final double epsilon,
            final int maxPerEpisode) {
        if (maxPerEpisode < 1) {
            throw new IllegalArgumentException(
                    "--per-episode must be at least 1 transition, got " + maxPerEpisode);
        }
        final List<EnvironmentSource> sources = sources(split);
        final List<Transition> out = new ArrayList<>(count);
        final Clock clock = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
        final EpisodeRunner runner = EpisodeRunner.withClock(clock);
        for (int n = 0; out.size() < count; n++) {
            final EnvironmentSource source = sources.get(n % sources.size());
            final List<Transition> episode =
                    runner.run(
                            source,
                            PolicyKind.EPSILON.agent(epsilon, PolicyKind.DEFAULT_INVALID_RATE),
                            AGENT_ID,
                            seed,
                            n);
            final SplittableRandom random =
                    new SplittableRandom(seed ^ Bootstrap.fnv(split + "/" + n));
            for (final int step : steps(episode.size(), maxPerEpisode, random)) {
                if (out.size() < count) {
                    out.add(episode.get(step));
                }
            }
        }
        return new HeldOutSet(split, out);
    }

    /** {@code k} distinct steps of {@code 0..length-1} (all when fewer), drawn and sorted. */
    static int[] steps(final int length, final int k, final SplittableRandom random) {
        final int[] all = new int[length];
        for (int i = 0; i < length; i++) {
            all[i] = i;
        }
        final int take = Math.min(k, length);
        for (int i = 0; i < take; i++) {
            final int j = i + random.nextInt(length - i);
            final int swap = all[i];
            all[i] = all[j];
            all[j] = swap;
        }
        final int[] chosen = Arrays.copyOf(all, take);
        Arrays.sort(chosen);
        return chosen;
    }

    static List<EnvironmentSource> sources(final String split) {
        return switch (split) {
            case "alfworld/valid_seen" ->
                    List.of(EnvKind.ALFWORLD.source("valid_seen", Grammar.CURRENT));
            case "alfworld/valid_unseen" ->
                    List.of(EnvKind.ALFWORLD.source("valid_unseen", Grammar.CURRENT));
            case "alfworld-older/valid_unseen" ->
                    List.of(EnvKind.ALFWORLD.source("valid_unseen", Grammar.OLDER));
            case "tau2/test" ->
                    List.of(
                            EnvKind.RETAIL.source(Splits.TEST, Grammar.CURRENT),
                            EnvKind.AIRLINE.source(Splits.TEST, Grammar.CURRENT));
            case "retail/test" -> List.of(EnvKind.RETAIL.source(Splits.TEST, Grammar.CURRENT));
            case "airline/test" -> List.of(EnvKind.AIRLINE.source(Splits.TEST, Grammar.CURRENT));
            default ->
                    throw new IllegalArgumentException(
                            "unknown held-out split '"
                                    + split
                                    + "'; use one of "
                                    + String.join(", ", SPLITS)
                                    + ", or --transitions-file FILE.jsonl");
        };
    }

    /**
     * The first {@code count} transitions of a JSONL file of recorded episodes, in the format of
     * {@code rwml env import} ({@link TrajectoryParser}), built as the importer builds them.
     *
     * @throws IllegalArgumentException when the file cannot be read or a line is malformed (its
     *     number and reason are named)
     */
    public static HeldOutSet fromFile(final Path file, final int count) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(
                    "cannot read --transitions-file "
                            + file.toAbsolutePath()
                            + ": give a JSONL file with one recorded episode per line (the"
                            + " format of `rwml env import`)");
        }
        final TrajectoryParser parser = new TrajectoryParser(Optional.empty(), Optional.empty());
        final Clock clock = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
        final List<Transition> out = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null && out.size() < count) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                for (final Transition t :
                        parser.parse(number, line)
                                .transitions(EpisodeRunner.DEFAULT_HISTORY_TURNS, clock)) {
                    if (out.size() < count) {
                        out.add(t);
                    }
                }
            }
        } catch (MalformedLineException e) {
            throw new IllegalArgumentException(
                    file + ": " + e.getMessage() + "; fix or remove the line", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(
                    file + " holds no episode; give a JSONL file with one episode per line");
        }
        final String name = file.getFileName().toString().replaceFirst("\\.jsonl?$", "");
        return new HeldOutSet(name, out);
    }
}
