package dev.rwml.env.tau2;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Function;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What every domain's tool box shares: its name, policy and tool list, the database its tools
 * change, the tools that need no database ({@code calculate}, {@code transfer_to_human_agents}) and
 * the helpers that refuse unknown ids and pick recent ids out of seen text.
 */
public abstract class DomainTools<D extends DomainDb<D>> implements ToolBox {

    /**
     * How many distinct recent matches {@link #lastMatches} keeps, so candidate lists stay short.
     */
    private static final int RECENT = 3;

    /** The database the tools read and change. */
    protected final D db;

    private final String domain;
    private final String policy;
    private final List<String> toolNames;
    private final Function<D, ToolBox> toolsOver;

    /**
     * Tools named {@code toolNames} (sorted) over {@code db}; {@code toolsOver} makes the same
     * domain's tools over another database, for {@link #copy()}.
     */
    protected DomainTools(
            final String domain,
            final String policy,
            final List<String> toolNames,
            final D db,
            final Function<D, ToolBox> toolsOver) {
        this.domain = domain;
        this.policy = policy;
        this.toolNames = toolNames;
        this.db = db;
        this.toolsOver = toolsOver;
    }

    @Override
    public final String domain() {
        return domain;
    }

    @Override
    public final String policy() {
        return policy;
    }

    @Override
    public final List<String> toolNames() {
        return toolNames;
    }

    @Override
    public final Object snapshot() {
        return db.copy();
    }

    @Override
    public final ToolBox copy() {
        return toolsOver.apply(db.copy());
    }

    @Override
    public final String call(final ToolCall call) {
        final Args a = call.args();
        return switch (call.name()) {
            case "calculate" -> Calculator.calculate(a.text("expression"));
            case "transfer_to_human_agents" -> {
                a.text("summary");
                yield "Transfer successful";
            }
            default -> callDomainTool(call.name(), a);
        };
    }

    /**
     * Runs one of the domain's own tools.
     *
     * @throws ToolError as {@link ToolBox#call}, and {@link #unknownTool} for a name it lacks
     */
    protected abstract String callDomainTool(String name, Args a);

    /** The error for a tool name the domain does not have. */
    protected static ToolError unknownTool(final String name) {
        return ToolError.badArgument("unknown tool '" + name + "'");
    }

    /** {@code value}, or a rule error with {@code missing} as its message when it is null. */
    protected static <T> T found(final T value, final String missing) {
        if (value == null) {
            throw ToolError.rule(missing);
        }
        return value;
    }

    /**
     * The last three distinct keys of the pattern's matches in {@code text}, oldest first; a key
     * seen again counts as recent.
     */
    protected static <K> List<K> lastMatches(
            final Pattern pattern, final String text, final Function<MatchResult, K> key) {
        final LinkedHashSet<K> seen = new LinkedHashSet<>();
        final Matcher m = pattern.matcher(text);
        while (m.find()) {
            final K k = key.apply(m);
            seen.remove(k);
            seen.add(k);
        }
        final List<K> all = new ArrayList<>(seen);
        return all.subList(Math.max(0, all.size() - RECENT), all.size());
    }
}
