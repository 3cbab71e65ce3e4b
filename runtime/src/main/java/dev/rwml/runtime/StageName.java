package dev.rwml.runtime;

import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.util.Arrays;
import java.util.List;
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

    /**
     * The topics the stage reads in a run, main input first. The reward stage joins both of its
     * inputs, so either side falling behind holds groups back; the prediction stage reads only one
     * of its two, see {@link #readsOneInput}.
     */
    public List<String> inputTopics(final RunTopics run) {
        return switch (this) {
            case PREDICTION -> List.of(TopicCatalog.TRANSITIONS, run.curriculum().name());
            case REWARD -> List.of(run.predictions().name(), TopicCatalog.TRANSITIONS);
            case TRAINER -> List.of(run.rewards().name());
            case FILTER -> List.of(TopicCatalog.TRANSITIONS);
        };
    }

    /**
     * Whether the stage reads just one of its {@link #inputTopics}, the one its configuration
     * chooses: the prediction stage reads transitions, or the filter's curriculum.
     */
    public boolean readsOneInput() {
        return this == PREDICTION;
    }

    /** Whether a run may go without the stage: the filter, which only some runs put first. */
    public boolean optional() {
        return this == FILTER;
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
