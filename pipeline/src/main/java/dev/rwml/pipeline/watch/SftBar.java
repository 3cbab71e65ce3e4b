package dev.rwml.pipeline.watch;

import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.worldmodel.train.StepMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Shows a base model's SFT steps as a bar on a live display, with the latest loss. */
public final class SftBar implements BaseModelInit.Listener {

    private final RunOutput.Live view;
    private final String title;
    private final long started = System.nanoTime();

    /**
     * @param view where the bar goes
     * @param title what runs, e.g. {@code rwml model init}
     */
    public SftBar(final RunOutput.Live view, final String title) {
        this.view = view;
        this.title = title;
    }

    @Override
    public void step(final StepMetrics m, final int total) {
        view.show(
                LiveFacts.bars(
                        title,
                        Duration.ofNanos(System.nanoTime() - started),
                        List.of(
                                new LiveFacts.Bar(
                                        String.format(
                                                Locale.ROOT, "SFT steps (loss %.3f)", m.loss()),
                                        Math.min(m.step() + 1, total),
                                        total))));
    }
}
