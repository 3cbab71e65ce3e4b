package dev.rwml.ops.cli;

import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.watch.RunOutput;
import java.io.PrintWriter;

/**
 * The one progress printer of the long-running commands (demo, bench, replay): a line per step,
 * flushed at once so the terminal shows it while the work goes on, and the live view of each phase.
 */
public final class Progress implements RunOutput {

    private final PrintWriter out;
    private final boolean interactive;

    /**
     * @param out the command's output
     * @param interactive whether {@code out} is a terminal (the live panel; plain lines otherwise)
     */
    public Progress(final PrintWriter out, final boolean interactive) {
        this.out = out;
        this.interactive = interactive;
    }

    @Override
    public void line(final String line) {
        out.println(line);
        out.flush();
    }

    @Override
    public LiveView live() {
        return LiveView.open(out, interactive);
    }
}
