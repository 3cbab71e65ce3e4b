package dev.rwml.env.tau2;

import java.util.List;

/** A domain's database together with its tools, as the desk drives them. */
public interface ToolBox {

    /** The domain name, e.g. {@code retail}. */
    String domain();

    /** The short policy text shown to the agent. */
    String policy();

    /** The tool names, sorted. */
    List<String> toolNames();

    /**
     * Runs a call and returns its result text (JSON or a plain string).
     *
     * @throws ToolError when the call is malformed or breaks a rule; the database is unchanged
     */
    String call(ToolCall call);

    /** An immutable copy of the database, equal to another snapshot exactly when the data are. */
    Object snapshot();

    /** An independent tool box over a copy of the database. */
    ToolBox copy();

    /** Read-only calls with plausible arguments taken from text the agent has seen. */
    List<ToolCall> plausibleReads(String seenText);
}
