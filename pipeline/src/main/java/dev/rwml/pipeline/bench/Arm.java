package dev.rwml.pipeline.bench;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The bench's trained arms: each one's name and the stage settings that make it. */
public enum Arm {
    /** The trainer's SFT objective on the observed next states; one sample per transition. */
    WM_SFT("wm-sft", Map.of("prediction.group.size", "1", "trainer.objective", "sft"), false),
    /** GRPO on the slice the paper's offline filter kept (easy ones kept with probability 0.1). */
    RWML("rwml", Map.of(), true),
    /** GRPO on the whole slice: no filter, every easy group trained. */
    RWML_NO_FILTER("rwml-nofilter", Map.of("reward.easy.keep.probability", "1"), false),
    /**
     * GRPO with the online rule instead of the filter model: a group is easy when one of the
     * policy's own samples passes the data-stage threshold (the reward stage's default; an extra
     * ablation).
     */
    RWML_ONLINE("rwml-online", Map.of(), false);

    /** The prefixes of the stages an arm's settings go to. */
    static final List<String> STAGES = List.of("prediction.", "reward.", "trainer.", "filter.");

    private final String id;
    private final Map<String, String> settings;
    private final boolean filtered;

    Arm(final String id, final Map<String, String> settings, final boolean filtered) {
        this.id = id;
        this.settings = settings;
        this.filtered = filtered;
    }

    /** The arm's name in run names, options and tables. */
    public String id() {
        return id;
    }

    /** Stage settings over the bench's own, keyed {@code prediction.}, {@code reward.} etc. */
    Map<String, String> settings() {
        return settings;
    }

    /** Whether the arm trains on what the offline filter kept. */
    boolean filtered() {
        return filtered;
    }

    /** The arm named {@code id}; the message lists the names. */
    public static Arm of(final String id) {
        for (final Arm arm : values()) {
            if (arm.id.equals(id)) {
                return arm;
            }
        }
        throw new IllegalArgumentException(
                "unknown arm '"
                        + id
                        + "'; the arms are "
                        + Arrays.stream(values()).map(Arm::id).collect(Collectors.joining(", ")));
    }

    /**
     * Parses {@code --arm-set} values, {@code ARM:STAGE.KEY=V}, into settings per arm.
     *
     * @throws IllegalArgumentException naming the value and the expected form
     */
    public static Map<Arm, Map<String, String>> parseSettings(final List<String> values) {
        final Map<Arm, Map<String, String>> out = new EnumMap<>(Arm.class);
        for (final String value : values) {
            final int colon = value.indexOf(':');
            final int eq = value.indexOf('=');
            if (colon < 1 || eq < colon + 2) {
                throw new IllegalArgumentException(
                        "--arm-set "
                                + value
                                + " is not ARM:STAGE.KEY=V, e.g. rwml:trainer.passes=2");
            }
            final Arm arm = of(value.substring(0, colon));
            final String key = value.substring(colon + 1, eq).trim();
            if (STAGES.stream().noneMatch(key::startsWith)) {
                throw new IllegalArgumentException(
                        "--arm-set "
                                + value
                                + " names no stage: the key starts with one of "
                                + String.join(", ", STAGES));
            }
            out.computeIfAbsent(arm, a -> new LinkedHashMap<>())
                    .put(key, value.substring(eq + 1).trim());
        }
        return out;
    }
}
