package dev.rwml.worldmodel.prompt;

import dev.rwml.events.Transition;
import java.util.List;

/**
 * What the agent sees when it must act: the task, the last turns, the current observation and,
 * where the environment gives them, the admissible actions. The acting role's prompt is built from
 * it alone, so no prompt can hold the action it asks for or what followed it.
 *
 * @param env environment name (alfworld, retail, airline, ...)
 * @param task the task text
 * @param history earlier turns, oldest first
 * @param observation the current observation s_t
 * @param admissibleActions the actions valid now, empty where the action space is open (the tau2
 *     desks, where the agent writes its own tool calls and messages)
 */
public record ActingView(
        String env,
        String task,
        List<PromptView.HistoryTurn> history,
        String observation,
        List<String> admissibleActions)
        implements PromptFormat.Situation {

    public ActingView {
        history = List.copyOf(history);
        admissibleActions = List.copyOf(admissibleActions);
    }

    /**
     * The view the agent had before it took a transition's action (for behaviour cloning on
     * recorded experience): its action and next observation are not copied; the admissible actions
     * are, where the transition recorded them and the action space is closed (a desk's recorded
     * list is a sample of candidates, not what its agent is given).
     */
    public static ActingView of(final Transition t) {
        return of(t, PromptView.of(t).history());
    }

    /**
     * As {@link #of(Transition)}, with the episode's earlier turns as the agent remembered them
     * ({@code earlier}, oldest first: more than the H the transition carries).
     */
    public static ActingView of(final Transition t, final List<PromptView.HistoryTurn> earlier) {
        final PromptView seen = PromptView.of(t);
        return new ActingView(
                seen.env(),
                seen.task(),
                earlier,
                seen.observation(),
                t.getAdmissibleActions() == null || PromptFormat.isDialogue(seen.env())
                        ? List.of()
                        : t.getAdmissibleActions());
    }

    @Override
    public ActingView withLastTurns(final int turns) {
        final int from = Math.max(0, history.size() - Math.max(0, turns));
        return new ActingView(
                env, task, history.subList(from, history.size()), observation, admissibleActions);
    }
}
