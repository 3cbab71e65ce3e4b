package dev.rwml.env.tau2;

import java.util.List;

/**
 * A generated service-desk task: the user's hidden scenario, the gold plan the expert follows
 * (messages and tool calls as action texts; its tool calls are the gold actions that define the
 * target database) and the facts the agent must say to the user.
 */
public record Tau2Task(
        String id,
        String kind,
        UserScenario scenario,
        List<String> plan,
        List<String> requiredOutputs) {

    /** Copies the lists so a task never changes after it is made. */
    public Tau2Task {
        plan = List.copyOf(plan);
        requiredOutputs = List.copyOf(requiredOutputs);
    }

    /** The gold tool calls, in plan order. */
    public List<ToolCall> goldCalls() {
        return plan.stream()
                .map(DeskAction::parse)
                .filter(DeskAction.Call.class::isInstance)
                .map(a -> ((DeskAction.Call) a).call())
                .toList();
    }
}
