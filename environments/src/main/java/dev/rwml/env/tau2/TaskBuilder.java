package dev.rwml.env.tau2;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds a {@link Tau2Task} step by step: each question the expert asks adds the answer to the
 * user's hidden knowledge, so the plan and the scenario always agree.
 */
public final class TaskBuilder {

    private final String id;
    private final String kind;
    private final List<String> plan = new ArrayList<>();
    private final Map<InfoKind, String> known = new EnumMap<>(InfoKind.class);
    private final Set<InfoKind> unknown = EnumSet.noneOf(InfoKind.class);
    private final List<String> required = new ArrayList<>();

    /** A task with the given id and kind (e.g. {@code cancel_pending_order}). */
    public TaskBuilder(final String id, final String kind) {
        this.id = id;
        this.kind = kind;
    }

    /** The expert asks for {@code info}; the user knows it and answers {@code answer}. */
    public TaskBuilder ask(final InfoKind info, final String answer) {
        plan.add(info.question());
        known.put(info, answer);
        return this;
    }

    /** The expert asks for {@code info}; the user does not know it. */
    public TaskBuilder askUnknown(final InfoKind info) {
        plan.add(info.question());
        unknown.add(info);
        return this;
    }

    /** The expert calls a tool. */
    public TaskBuilder call(final ToolCall call) {
        plan.add(call.toAction());
        return this;
    }

    /** The expert says something to the user. */
    public TaskBuilder say(final String message) {
        plan.add(message);
        return this;
    }

    /** A fact the agent must say to the user for the task to count as solved. */
    public TaskBuilder require(final String fact) {
        required.add(fact);
        return this;
    }

    /** The finished task. */
    public Tau2Task build(final String opening, final String reminder, final boolean transfer) {
        return new Tau2Task(
                id,
                kind,
                new UserScenario(opening, reminder, known, unknown, transfer),
                plan,
                required);
    }
}
