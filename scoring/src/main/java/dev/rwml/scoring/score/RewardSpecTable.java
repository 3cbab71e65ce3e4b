package dev.rwml.scoring.score;

import dev.rwml.events.NextStateKind;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Chooses the reward spec for each transition from its environment and next-state kind: an entry
 * for {@code env/KIND} wins over one for {@code KIND}. Written as a list such as {@code
 * TEXT=cosine:0.8,USER_MESSAGE=cosine:0.6,TOOL_RESULT=rouge:0.6,alfworld/TEXT=exact}.
 *
 * @param byKind the spec of each next-state kind; must cover every kind
 * @param byEnvAndKind overrides keyed {@code env/KIND}
 */
public record RewardSpecTable(
        Map<NextStateKind, RewardSpec> byKind, Map<String, RewardSpec> byEnvAndKind) {

    /** Copies the maps and checks that every kind has a spec. */
    public RewardSpecTable {
        byKind = Map.copyOf(byKind);
        byEnvAndKind = Map.copyOf(byEnvAndKind);
        for (final NextStateKind kind : NextStateKind.values()) {
            if (!byKind.containsKey(kind)) {
                throw new IllegalArgumentException(
                        "reward spec table has no entry for " + kind + "; add " + kind + "=...");
            }
        }
    }

    /**
     * The paper's choices: cosine above 0.8 for observations, above 0.6 for user replies, and
     * rounded masked ROUGE-L above 0.6 for tool outputs.
     */
    public static RewardSpecTable paperDefaults() {
        final Map<NextStateKind, RewardSpec> byKind = new EnumMap<>(NextStateKind.class);
        byKind.put(NextStateKind.TEXT, RewardSpec.cosine(RewardSpec.TEXT_COSINE_THRESHOLD));
        byKind.put(NextStateKind.USER_MESSAGE, RewardSpec.cosine(RewardSpec.USER_COSINE_THRESHOLD));
        byKind.put(NextStateKind.TOOL_RESULT, RewardSpec.rougeL(RewardSpec.TOOL_ROUGE_THRESHOLD));
        return new RewardSpecTable(byKind, Map.of());
    }

    /** The spec for a transition of this environment and kind. */
    public RewardSpec specFor(final String env, final NextStateKind kind) {
        final RewardSpec specific = byEnvAndKind.get(key(env, kind));
        return specific != null ? specific : byKind.get(kind);
    }

    /**
     * Applies overrides written as comma- or semicolon-separated {@code [env/]KIND=spec} entries to
     * this table; a blank text changes nothing.
     */
    public RewardSpecTable withOverrides(final String text) {
        if (text == null || text.isBlank()) {
            return this;
        }
        final Map<NextStateKind, RewardSpec> kinds = new EnumMap<>(byKind);
        final Map<String, RewardSpec> envs = new LinkedHashMap<>(byEnvAndKind);
        for (final String entry : text.split("[,;]")) {
            if (entry.isBlank()) {
                continue;
            }
            final int eq = entry.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(
                        "reward spec entry '"
                                + entry.strip()
                                + "' must look like [env/]KIND=method[:threshold],"
                                + " e.g. TEXT=cosine:0.8 or retail/TOOL_RESULT=rouge:0.6");
            }
            final String target = entry.substring(0, eq).strip();
            final RewardSpec spec = RewardSpec.parse(entry.substring(eq + 1));
            final int slash = target.lastIndexOf('/');
            if (slash < 0) {
                kinds.put(kind(target), spec);
            } else {
                final String env = target.substring(0, slash).strip();
                if (env.isEmpty()) {
                    throw new IllegalArgumentException(
                            "reward spec entry '" + entry.strip() + "' names an empty environment");
                }
                envs.put(key(env, kind(target.substring(slash + 1))), spec);
            }
        }
        return new RewardSpecTable(kinds, envs);
    }

    /** The paper's defaults with the given overrides. */
    public static RewardSpecTable parse(final String text) {
        return paperDefaults().withOverrides(text);
    }

    private static NextStateKind kind(final String text) {
        try {
            return NextStateKind.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown next-state kind '" + text + "'; use TEXT, TOOL_RESULT or USER_MESSAGE",
                    e);
        }
    }

    private static String key(final String env, final NextStateKind kind) {
        return Objects.requireNonNull(env, "env") + "/" + kind.name();
    }

    /** The table in the text form {@link #parse} reads. */
    @Override
    public String toString() {
        final Map<String, RewardSpec> all = new LinkedHashMap<>();
        for (final NextStateKind kind : NextStateKind.values()) {
            all.put(kind.name(), byKind.get(kind));
        }
        all.putAll(new TreeMap<>(byEnvAndKind));
        return all.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
    }
}
