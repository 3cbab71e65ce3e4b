package dev.rwml.worldmodel.prompt;

import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The prompts of the agent's LLM in its two roles, compacted for small models: an instruction per
 * environment kind (ALFWorld household or tau2 retail/airline), the task and the last turns (H for
 * predicting, {@link #ACTING_HISTORY_TURNS} for acting), then
 *
 * <ul>
 *   <li><b>predicting</b> (the RWML paper's world-model prompt, from a {@link PromptView}): the
 *       current observation and an action; the answer is {@code
 *       <think>…</think><next_state>…</next_state>} (its SFT target is {@link SftTarget#ids});
 *   <li><b>acting</b> (from an {@link ActingView}): the current observation and, where the
 *       environment gives them, the admissible actions; the answer is {@code <think>…</think>}
 *       followed by the action alone (its behaviour-cloning target is {@link SftTarget#actionIds};
 *       {@link ActionAnswer} reads it).
 * </ul>
 *
 * <p>Neither is ever built from what followed the action.
 */
public final class PromptFormat {

    /** History turns kept by default (H in the paper's agent framework). */
    public static final int DEFAULT_HISTORY_TURNS = 2;

    /**
     * History turns an acting prompt keeps, oldest dropped first when the prompt budget is short:
     * the agent's memory of its episode (where it has looked, what failed), which the world model's
     * H = 2 does not need. With two turns a deterministic agent whose last actions did nothing sees
     * the same prompt again and repeats itself forever.
     */
    public static final int ACTING_HISTORY_TURNS = 8;

    /**
     * What a chat model is told about the predicting answer's shape (the small model learned it
     * from its SFT targets instead).
     */
    public static final String ANSWER_FORMAT =
            " Think briefly, then answer exactly as <think>your reasoning</think>"
                    + "<next_state>the next observation</next_state>.";

    /** What a chat model is told about the acting answer's shape. */
    public static final String ACTION_FORMAT =
            " Think briefly, then answer exactly as <think>your reasoning</think> followed by the"
                    + " action alone, on one line, written as the environment expects it.";

    /** What a prompt is built from: the situation of one role, with its history turns. */
    public sealed interface Situation permits PromptView, ActingView {
        /** The environment's name. */
        String env();

        /** Earlier turns, oldest first. */
        List<PromptView.HistoryTurn> history();

        /** The same situation keeping only the last {@code turns} history turns. */
        Situation withLastTurns(int turns);
    }

    /** Turns a prompt's instruction (the system part) and its situation (the user part) to text. */
    @FunctionalInterface
    public interface Renderer {
        /** The model's input text for an instruction and a situation. */
        String render(String system, String user);
    }

    /** The plain text prompt of the small model: the instruction line, then the situation. */
    public static final Renderer PLAIN = (system, user) -> system + "\n" + user;

    private final int historyTurns;

    /** A format keeping the last {@code historyTurns} turns. */
    public PromptFormat(final int historyTurns) {
        if (historyTurns < 0) {
            throw new IllegalArgumentException("historyTurns must be >= 0, got " + historyTurns);
        }
        this.historyTurns = historyTurns;
    }

    /** The format with H = 2. */
    public static PromptFormat standard() {
        return new PromptFormat(DEFAULT_HISTORY_TURNS);
    }

    /**
     * Plain prompt text for a situation (its history cut to the last H turns, or {@link
     * #ACTING_HISTORY_TURNS} for the acting role).
     */
    public String text(final Situation situation) {
        return render(lastTurns(situation), PLAIN, false);
    }

    /** The situation with the history turns its role keeps. */
    private Situation lastTurns(final Situation situation) {
        return situation.withLastTurns(
                situation instanceof ActingView
                        ? Math.max(historyTurns, ACTING_HISTORY_TURNS)
                        : historyTurns);
    }

    /**
     * Plain prompt text and tokens within {@code maxTokens}: drops the oldest history turns first
     * and reports ({@link Prompt#fits()}) when even the shortest prompt is longer.
     */
    public Prompt build(
            final Situation situation, final WorldModelTokenizer tokenizer, final int maxTokens) {
        return build(situation, tokenizer::encode, maxTokens, PLAIN, false);
    }

    /**
     * As {@link #build(Situation, WorldModelTokenizer, int)} for any tokenizer, with the
     * instruction and the situation rendered by {@code renderer} (a checkpoint's chat template as
     * system and user messages); {@code describeAnswer} appends the role's answer shape ({@link
     * #ANSWER_FORMAT} or {@link #ACTION_FORMAT}) to the instruction, for a model that did not learn
     * it from this project's targets.
     */
    public Prompt build(
            final Situation situation,
            final Function<String, int[]> encoder,
            final int maxTokens,
            final Renderer renderer,
            final boolean describeAnswer) {
        Situation v = lastTurns(situation);
        final int kept = v.history().size();
        while (true) {
            final String text = render(v, renderer, describeAnswer);
            final int[] ids = encoder.apply(text);
            if (ids.length <= maxTokens || v.history().isEmpty()) {
                return new Prompt(text, ids, kept - v.history().size(), ids.length <= maxTokens);
            }
            v = v.withLastTurns(v.history().size() - 1);
        }
    }

    /** Whether an environment is a tau2 dialogue domain rather than a household. */
    public static boolean isDialogue(final String env) {
        final String e = env.toLowerCase(Locale.ROOT);
        return e.contains("retail")
                || e.contains("airline")
                || e.contains("telecom")
                || e.contains("tau");
    }

    private static String render(
            final Situation situation, final Renderer renderer, final boolean describeAnswer) {
        final boolean dialogue = isDialogue(situation.env());
        if (situation instanceof ActingView v) {
            return renderer.render(
                    (dialogue ? dialogueActingInstruction(v.env()) : householdActingInstruction())
                            + (describeAnswer ? ACTION_FORMAT : ""),
                    dialogue ? dialogueActing(v) : householdActing(v));
        }
        final PromptView v = (PromptView) situation;
        return renderer.render(
                (dialogue ? dialogueInstruction(v.env()) : householdInstruction())
                        + (describeAnswer ? ANSWER_FORMAT : ""),
                dialogue ? dialogue(v) : household(v));
    }

    private static String householdInstruction() {
        return "You are an expert agent in the ALFRED embodied household environment."
                + " Predict the immediate next observation after the action.";
    }

    private static String householdActingInstruction() {
        return "You are an expert agent in the ALFRED embodied household environment."
                + " Choose the next action that brings the task closer to done.";
    }

    private static String dialogueInstruction(final String env) {
        return "You simulate the "
                + env
                + " customer-service environment: its tools and its user."
                + " Predict the tool result or the user's reply to the agent's action.";
    }

    private static String dialogueActingInstruction(final String env) {
        return "You are the agent of the "
                + env
                + " customer-service desk."
                + " Choose the next action: a tool call or a message to the user.";
    }

    private static void householdTurns(
            final StringBuilder s, final String task, final List<PromptView.HistoryTurn> turns) {
        s.append("Task: ").append(task).append('\n');
        for (final PromptView.HistoryTurn t : turns) {
            s.append(t.observation()).append('\n').append("> ").append(t.action()).append('\n');
        }
    }

    private static void dialogueTurns(
            final StringBuilder s, final String task, final List<PromptView.HistoryTurn> turns) {
        s.append("Task: ").append(task).append('\n');
        for (final PromptView.HistoryTurn t : turns) {
            s.append("env: ").append(t.observation()).append('\n');
            s.append("agent: ").append(t.action()).append('\n');
        }
    }

    private static String household(final PromptView v) {
        final StringBuilder s = new StringBuilder();
        householdTurns(s, v.task(), v.history());
        s.append("Your current observation is: ").append(v.observation()).append('\n');
        s.append("Potential action: ").append(v.action()).append('\n');
        return s.toString();
    }

    private static String householdActing(final ActingView v) {
        final StringBuilder s = new StringBuilder();
        householdTurns(s, v.task(), v.history());
        s.append("Your current observation is: ").append(v.observation()).append('\n');
        if (!v.admissibleActions().isEmpty()) {
            s.append("Admissible actions: ")
                    .append(String.join(", ", v.admissibleActions()))
                    .append('\n');
        }
        s.append("Your next action:\n");
        return s.toString();
    }

    private static String dialogue(final PromptView v) {
        final StringBuilder s = new StringBuilder();
        dialogueTurns(s, v.task(), v.history());
        s.append("Current: ").append(v.observation()).append('\n');
        s.append(v.actionIsToolCall() ? "Agent tool call: " : "Agent message: ")
                .append(v.action())
                .append('\n');
        return s.toString();
    }

    private static String dialogueActing(final ActingView v) {
        final StringBuilder s = new StringBuilder();
        dialogueTurns(s, v.task(), v.history());
        s.append("Current: ").append(v.observation()).append('\n');
        s.append("Agent's next action:\n");
        return s.toString();
    }
}
