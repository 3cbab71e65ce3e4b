package dev.rwml.pipeline;

import dev.rwml.ops.cli.Progress;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * A pipeline class that uses the command, against the layers: {@code LayeringTest} checks that its
 * rule reports this. Test code only, never imported as main code.
 */
public final class PipelineLayeringViolation {

    private PipelineLayeringViolation() {}

    /** The command's progress printer, which the pipeline must not know. */
    public static Object output() {
        return new Progress(new PrintWriter(new StringWriter()), false);
    }
}
