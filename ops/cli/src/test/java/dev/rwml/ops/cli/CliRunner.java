package dev.rwml.ops.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * Runs the {@code rwml} command in this JVM, parsed and handled as {@link Rwml#main} does, with
 * what it prints captured for the test to assert on.
 */
public final class CliRunner {

    private CliRunner() {}

    /** The exit code of one in-process {@code rwml} invocation and what it printed. */
    public record Result(int code, String out, String err) {}

    /** Runs {@code rwml <args>} and returns its exit code, stdout and stderr. */
    public static Result rwml(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine cli = Rwml.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        final int code = cli.execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
