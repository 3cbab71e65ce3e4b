package dev.rwml.worldmodel.prompt;

import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import java.util.Locale;
import java.util.function.Function;

/**
 * The world-model prompt of the RWML paper, compacted for small models: an instruction per
 * environment kind (ALFWorld household or tau2 retail/airline), the task, the last H turns, the
 * current observation and the action; the answer is {@code
 * <think>…</think><next_state>…</next_state>} (its SFT target is {@link SftTarget}'s). Built from a
 * {@link PromptView}, never from the next observation.
 */
public final class PromptFormat {

    /** History turns kept by default (H in the paper's agent framework). */
    public static final int DEFAULT_HISTORY_TURNS = 2;

    /**
     * What a chat model is told about the answer's shape (the small model learned it from its SFT
     * targets instead).
     */
    public static final String ANSWER_FORMAT =
            " Think briefly, then answer exactly as <think>your reasoning</think>"
                    + "<next_state>the next observation</next_state>.";

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

    /** Prompt text for a view (its history cut to the last H turns). */
    public String text(final PromptView view) {
        final PromptView v = view.withLastTurns(historyTurns);
        return render(v, PLAIN, "");
    }

    /**
     * Prompt text and tokens within {@code maxTokens}: drops the oldest history turns first and
     * reports ({@link Prompt#fits()}) when even the shortest prompt is longer.
     */
    public Prompt build(
            final PromptView view, final WorldModelTokenizer tokenizer, final int maxTokens) {
        return build(view, tokenizer::encode, maxTokens, PLAIN, "");
    }

    /**
     * As {@link #build(PromptView, WorldModelTokenizer, int)} for any tokenizer, with the
     * instruction (plus {@code instructionSuffix}) and the situation rendered by {@code renderer}
     * (a checkpoint's chat template as system and user messages).
     */
    public Prompt build(
            final PromptView view,
            final Function<String, int[]> encoder,
            final int maxTokens,
            final Renderer renderer,
            final String instructionSuffix) {
        PromptView v = view.withLastTurns(historyTurns);
        final int kept = v.history().size();
        while (true) {
            final String text = render(v, renderer, instructionSuffix);
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
            final PromptView v, final Renderer renderer, final String instructionSuffix) {
        final boolean dialogue = isDialogue(v.env());
        final String instruction = dialogue ? dialogueInstruction(v) : householdInstruction();
        return renderer.render(
                instruction + instructionSuffix, dialogue ? dialogue(v) : household(v));
    }

    private static String householdInstruction() {
        return "You are an expert agent in the ALFRED embodied household environment."
                + " Predict the immediate next observation after the action.";
    }

    private static String dialogueInstruction(final PromptView v) {
        return "You simulate the "
                + v.env()
                + " customer-service environment: its tools and its user."
                + " Predict the tool result or the user's reply to the agent's action.";
    }

    private static String household(final PromptView v) {
        final StringBuilder s = new StringBuilder();
        s.append("Task: ").append(v.task()).append('\n');
        for (final PromptView.HistoryTurn t : v.history()) {
            s.append(t.observation()).append('\n').append("> ").append(t.action()).append('\n');
        }
        s.append("Your current observation is: ").append(v.observation()).append('\n');
        s.append("Potential action: ").append(v.action()).append('\n');
        return s.toString();
    }

    private static String dialogue(final PromptView v) {
        final StringBuilder s = new StringBuilder();
        s.append("Task: ").append(v.task()).append('\n');
        for (final PromptView.HistoryTurn t : v.history()) {
            s.append("env: ").append(t.observation()).append('\n');
            s.append("agent: ").append(t.action()).append('\n');
        }
        s.append("Current: ").append(v.observation()).append('\n');
        s.append(v.actionIsToolCall() ? "Agent tool call: " : "Agent message: ")
                .append(v.action())
                .append('\n');
        return s.toString();
    }
}
