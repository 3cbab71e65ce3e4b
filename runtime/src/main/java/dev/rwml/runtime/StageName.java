package dev.rwml.runtime;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The stages of a run, each with the one name it is known by: in dead letters, metrics, consumer
 * group and application ids, environment variables and {@code rwml} commands.
 */
public enum StageName {
    /** Transitions to prediction groups ({@code rwml predict}). */
    PREDICTION("prediction", "predict"),
    /** Predictions joined with transitions to rewarded groups ({@code rwml reward}). */
    REWARD("reward", "reward"),
    /** Rewarded groups to model versions ({@code rwml train}). */
    TRAINER("trainer", "train"),
    /** Transitions judged by a filter model before G-sampling ({@code rwml filter}). */
    FILTER("filter", "filter");

    private final String id;
    private final String command;

    StageName(final String id, final String command) {
        this.id = id;
        this.command = command;
    }

    /** The name in dead letters, metrics and ids, e.g. {@code reward}. */
    public String id() {
        return id;
    }

    /** The {@code rwml} subcommand that runs the stage. */
    public String command() {
        return command;
    }

    /** The stage's Kafka application / consumer group id in a run: {@code rwml-<run>-<id>}. */
    public String groupId(final String run) {
        return "rwml-" + run + "-" + id;
    }

    /** Prefix of the stage's environment variables, e.g. {@code RWML_REWARD_}. */
    public String envPrefix() {
        return "RWML_" + id.toUpperCase(Locale.ROOT) + "_";
    }

    /** The stage of an id or command name ({@code reward}, {@code train}, {@code trainer}...). */
    public static StageName parse(final String text) {
        for (final StageName stage : values()) {
            if (stage.id.equalsIgnoreCase(text) || stage.command.equalsIgnoreCase(text)) {
                return stage;
            }
        }
        throw new IllegalArgumentException(
                "unknown stage '"
                        + text
                        + "'; expected one of "
                        + Arrays.stream(values())
                                .map(StageName::id)
                                .collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return id;
    }
}
