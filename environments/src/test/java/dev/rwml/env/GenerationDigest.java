package dev.rwml.env;

import dev.rwml.env.agent.EpsilonExpertAgent;
import dev.rwml.env.agent.ExpertAgent;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.tau2.Tau2Desk;
import dev.rwml.env.tau2.Tau2Json;
import dev.rwml.events.Transition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;

/**
 * Test helper: a SHA-256 digest of everything generation produces for fixed seeds (tasks, first
 * observations, databases and the transitions of expert and epsilon episodes), printed by {@link
 * #main} so that separate JVMs can be compared.
 */
public final class GenerationDigest {

    private static final Clock CLOCK =
            Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final long[] SEEDS = {0, 1, 7, 42, 1234};
    private static final int EPISODES = 3;
    private static final List<Agent> AGENTS =
            List.of(new ExpertAgent(), new EpsilonExpertAgent(0.3, 0.1));

    private GenerationDigest() {}

    /** Prints the digest as lowercase hex on one line (the child-JVM side of the test). */
    public static void main(final String[] args) {
        // CLI-style output: the parent test reads this line from the child's stdout.
        System.out.println(compute());
    }

    /** The digest over every environment, split, seed and episode above. */
    public static String compute() {
        final MessageDigest sha = sha256();
        final EpisodeRunner runner = EpisodeRunner.withClock(CLOCK);
        for (final EnvKind kind : EnvKind.values()) {
            for (final String split : splits(kind)) {
                final EnvironmentSource source = kind.source(split, Grammar.CURRENT);
                for (final long seed : SEEDS) {
                    final Environment env = source.create(seed);
                    update(sha, kind.id() + "/" + split + "/" + seed);
                    update(sha, env.task());
                    update(sha, env.observation());
                    update(sha, String.join("|", env.admissibleActions()));
                    update(sha, env.metadata().toString());
                    if (env instanceof Tau2Desk desk) {
                        update(sha, Tau2Json.write(desk.databaseSnapshot()));
                    }
                    for (final Agent agent : AGENTS) {
                        for (int n = 0; n < EPISODES; n++) {
                            for (final Transition t :
                                    runner.run(source, agent, "digest", seed, n)) {
                                // toString keeps map iteration order, which Avro's binary
                                // encoding also keeps, so it must be reproducible too.
                                update(sha, t.toString());
                            }
                        }
                    }
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static List<String> splits(final EnvKind kind) {
        return kind == EnvKind.ALFWORLD
                ? List.of("train", "valid_seen", "valid_unseen")
                : List.of("train", "test");
    }

    private static void update(final MessageDigest sha, final String text) {
        sha.update(text.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
