package dev.rwml.worldmodel.prompt;

import dev.rwml.events.NextStateKind;
import dev.rwml.events.Transition;
import java.util.List;

/**
 * What the agent saw before acting: the only part of a transition a prompt may be built from. It
 * has no field for the next observation, so no prompt can leak it.
 *
 * @param env environment name (alfworld, retail, airline, ...)
 * @param task the task text
 * @param history earlier turns, oldest first
 * @param observation the current observation s_t
 * @param action the action a_t
 * @param actionIsToolCall whether the action is a tool call (its answer is a tool result)
 */
public record PromptView(
        String env,
        String task,
        List<HistoryTurn> history,
        String observation,
        String action,
        boolean actionIsToolCall)
        implements PromptFormat.Situation {

    public PromptView {
        history = List.copyOf(history);
    }

    /** One earlier action and what followed it. */
    public record HistoryTurn(String action, String observation) {}

    /** The view of a transition; its {@code nextObservation} is not copied. */
    public static PromptView of(final Transition t) {
        return new PromptView(
                t.getEnv().getName(),
                t.getTask(),
                t.getHistory().stream()
                        .map(h -> new HistoryTurn(h.getAction(), h.getObservation()))
                        .toList(),
                t.getObservation(),
                t.getAction(),
                t.getNextKind() == NextStateKind.TOOL_RESULT);
    }

    /** The same view keeping only the last {@code turns} history turns. */
    @Override
    public PromptView withLastTurns(final int turns) {
        final int from = Math.max(0, history.size() - Math.max(0, turns));
        return new PromptView(
                env,
                task,
                history.subList(from, history.size()),
                observation,
                action,
                actionIsToolCall);
    }
}
