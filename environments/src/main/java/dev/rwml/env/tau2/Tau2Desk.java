package dev.rwml.env.tau2;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.env.Environment;
import dev.rwml.env.StableMaps;
import dev.rwml.events.NextStateKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * One tau2-style service-desk conversation: the agent acts by a message to the simulated user or by
 * one tool call (see {@link DeskAction} for the format), and sees the user's reply or the tool's
 * result.
 *
 * <p>The conversation opens with the agent's {@value #GREETING} and the user's first message, which
 * is the first observation. It ends when the user says {@value UserSimulator#STOP} or {@value
 * UserSimulator#TRANSFER}, or at the step cap. The final step's reward is 1 when the database
 * equals the one the gold actions produce, every required fact was said to the user and, for
 * transfer tasks, the agent transferred; every other step's reward is 0.
 *
 * <p>A malformed or unknown tool call, or a call with missing or mistyped arguments, returns an
 * {@code Error: ...} result with {@code actionValid=false}; a call that breaks a domain rule
 * returns {@code Error: ...} with {@code actionValid=true}. Neither changes the database.
 */
public final class Tau2Desk implements Environment {

    /** The agent's fixed first message, already said when the episode starts. */
    public static final String GREETING = "Hi! How can I help you today?";

    /** The default cap on agent actions per conversation. */
    public static final int DEFAULT_MAX_STEPS = 40;

    private static final int SEEN_LIMIT = 6_000;
    private static final String TRANSFER_TOOL = "transfer_to_human_agents";
    private static final List<String> CANNED =
            List.of(
                    "Is there anything else I can help you with?",
                    "I'm sorry, I can't help with that request.",
                    "Please confirm (yes/no) that you want me to go ahead.");

    private final ToolBox box;
    private final Tau2Task task;
    private final UserSimulator user;
    private final Object goldSnapshot;
    private final int maxSteps;
    private final List<String> agentMessages = new ArrayList<>();
    private final StringBuilder seen = new StringBuilder();
    private String observation;
    private int steps;
    private int planCursor;
    private boolean transferred;
    private boolean done;
    private List<String> admissible;

    /**
     * A conversation over the given database and task.
     *
     * @throws IllegalStateException if a gold action of the task fails on the database
     */
    public Tau2Desk(final ToolBox box, final Tau2Task task, final int maxSteps) {
        if (maxSteps < 1) {
            throw new IllegalArgumentException("maxSteps must be at least 1, got " + maxSteps);
        }
        this.box = box;
        this.task = task;
        this.maxSteps = maxSteps;
        this.goldSnapshot = goldSnapshot(box, task);
        this.user = new UserSimulator(task.scenario());
        this.observation = user.opening();
        seen.append(observation).append('\n');
    }

    private static Object goldSnapshot(final ToolBox box, final Tau2Task task) {
        final ToolBox gold = box.copy();
        for (final ToolCall call : task.goldCalls()) {
            try {
                gold.call(call);
            } catch (ToolError e) {
                throw new IllegalStateException(
                        "gold action "
                                + call.toAction()
                                + " of task "
                                + task.id()
                                + " failed: "
                                + e.getMessage(),
                        e);
            }
        }
        return gold.snapshot();
    }

    @Override
    public String name() {
        return box.domain();
    }

    @Override
    public String task() {
        return box.policy()
                + "\nEach turn, either write a message to the user or call exactly one tool as"
                + " JSON: {\"name\": \"<tool>\", \"arguments\": {...}}.\nTools: "
                + String.join(", ", box.toolNames())
                + ".\nThe conversation began with your message: "
                + GREETING;
    }

    @Override
    public String observation() {
        return observation;
    }

    /** The task being played (scenario, gold plan, required facts), for tests and tooling. */
    public Tau2Task goldTask() {
        return task;
    }

    /** The simulated user, e.g. to see what it has revealed. */
    public UserSimulator user() {
        return user;
    }

    /** An immutable copy of the current database. */
    public Object databaseSnapshot() {
        return box.snapshot();
    }

    /** True when the current database equals the one the gold actions produce. */
    public boolean databaseMatchesGold() {
        return box.snapshot().equals(goldSnapshot);
    }

    @Override
    public List<String> admissibleActions() {
        if (admissible == null) {
            final TreeSet<String> actions = new TreeSet<>(CANNED);
            for (final InfoKind kind : InfoKind.values()) {
                actions.add(kind.question());
            }
            for (final ToolCall call : box.plausibleReads(seen.toString())) {
                actions.add(call.toAction());
            }
            expertAction().ifPresent(actions::add);
            admissible = List.copyOf(actions);
        }
        return admissible;
    }

    /**
     * A read the agent could have meant, with each text argument mistyped (a trailing 0), so it
     * names no record and the desk answers {@code Error: ...}; a call to a tool the domain does not
     * have when no such read exists.
     */
    @Override
    public String inadmissibleAction(final RandomGenerator rng) {
        final List<ToolCall> reads = new ArrayList<>();
        for (final ToolCall call : box.plausibleReads(seen.toString())) {
            if (call.arguments().size() > 0) {
                reads.add(call);
            }
        }
        for (int attempt = 0; attempt < 8 && !reads.isEmpty(); attempt++) {
            final ToolCall read = reads.get(rng.nextInt(reads.size()));
            final ObjectNode wrong = read.arguments().deepCopy();
            read.arguments()
                    .fields()
                    .forEachRemaining(
                            e -> {
                                if (e.getValue().isTextual()) {
                                    wrong.put(e.getKey(), e.getValue().asText() + "0");
                                }
                            });
            final ToolCall candidate = new ToolCall(read.name(), wrong);
            if (admissibleActions().contains(candidate.toAction())) {
                continue;
            }
            try {
                box.call(candidate); // a read: it changes nothing
            } catch (final ToolError e) {
                return candidate.toAction();
            }
        }
        return ToolCall.of("get_" + box.domain() + "_everything").toAction();
    }

    @Override
    public Optional<String> expertAction() {
        if (done || planCursor >= task.plan().size()) {
            return Optional.empty();
        }
        return Optional.of(task.plan().get(planCursor));
    }

    @Override
    public Step step(final String action) {
        if (done) {
            return new Step(
                    "Error: the conversation is over; start a new episode.",
                    NextStateKind.TOOL_RESULT,
                    0.0,
                    true,
                    false);
        }
        advancePlan(action);
        steps++;
        admissible = null;
        final DeskAction parsed = DeskAction.parse(action);
        final NextStateKind kind;
        final boolean valid;
        if (parsed instanceof DeskAction.Message message && !message.text().isEmpty()) {
            agentMessages.add(message.text());
            observation = user.reply(message.text(), goalMet(), transferred);
            done =
                    observation.contains(UserSimulator.STOP)
                            || observation.contains(UserSimulator.TRANSFER);
            kind = NextStateKind.USER_MESSAGE;
            valid = true;
        } else {
            kind = NextStateKind.TOOL_RESULT;
            valid = runTool(parsed);
        }
        seen.append(action).append('\n').append(observation).append('\n');
        if (seen.length() > SEEN_LIMIT) {
            // candidates come from recent turns; a bounded window keeps each step's scan cheap
            seen.delete(0, seen.length() - SEEN_LIMIT);
        }
        if (steps >= maxSteps) {
            done = true;
        }
        return new Step(observation, kind, done ? score() : 0.0, done, valid);
    }

    private boolean runTool(final DeskAction parsed) {
        if (parsed instanceof DeskAction.Malformed malformed) {
            observation = "Error: " + malformed.error();
            return false;
        }
        if (!(parsed instanceof DeskAction.Call call)) {
            observation = "Error: empty action; write a message to the user or a tool call.";
            return false;
        }
        final String tool = call.call().name();
        if (!box.toolNames().contains(tool)) {
            observation =
                    "Error: unknown tool '"
                            + tool
                            + "'. Available tools: "
                            + String.join(", ", box.toolNames());
            return false;
        }
        try {
            observation = box.call(call.call());
            if (TRANSFER_TOOL.equals(tool)) {
                transferred = true;
            }
            return true;
        } catch (ToolError e) {
            observation = "Error: " + e.getMessage();
            return !e.invalidCall();
        }
    }

    private void advancePlan(final String action) {
        if (planCursor >= task.plan().size()) {
            return;
        }
        final String expected = task.plan().get(planCursor);
        if (expected.equals(action) || sameCall(expected, action)) {
            planCursor++;
        }
    }

    private static boolean sameCall(final String expected, final String action) {
        final DeskAction a = DeskAction.parse(expected);
        final DeskAction b = DeskAction.parse(action);
        return a instanceof DeskAction.Call && a.equals(b);
    }

    private boolean requiredSaid() {
        final String said = String.join("\n", agentMessages).toLowerCase(Locale.ROOT);
        return task.requiredOutputs().stream()
                .allMatch(fact -> said.contains(fact.toLowerCase(Locale.ROOT)));
    }

    private boolean goalMet() {
        return !task.scenario().expectsTransfer() && requiredSaid() && databaseMatchesGold();
    }

    private double score() {
        final boolean transferOk = !task.scenario().expectsTransfer() || transferred;
        return transferOk && requiredSaid() && databaseMatchesGold() ? 1.0 : 0.0;
    }

    @Override
    public boolean done() {
        return done;
    }

    @Override
    public Map<String, String> metadata() {
        return StableMaps.sorted(Map.of("task_id", task.id(), "task_kind", task.kind()));
    }
}
