package dev.rwml.pipeline.bench;

import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.env.EnvKind;
import dev.rwml.pipeline.bench.BenchState.Step;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.pipeline.watch.RunOutput;
import dev.rwml.pipeline.watch.SftBar;
import dev.rwml.runtime.settings.Connection;
import java.io.IOException;
import java.util.Set;

/**
 * The base world model every arm starts from: version 0 of {@link BenchRun#BASE_RUN}, trained by
 * SFT on the pretraining slice.
 */
final class BenchBase {

    private static final int MAX_TRANSITIONS = 1_000_000;

    private final Connection connection;
    private final BenchRun.Settings settings;
    private final BenchState state;
    private final RunOutput output;

    BenchBase(
            final Connection connection,
            final BenchRun.Settings settings,
            final BenchState state,
            final RunOutput output) {
        this.connection = connection;
        this.settings = settings;
        this.state = state;
        this.output = output;
    }

    /** Trains and publishes the base model unless an earlier run did. */
    void ensure() throws IOException {
        if (state.done(Step.BASE).isPresent()) {
            output.say("Base model: done before (version 0 of run %s)", BenchRun.BASE_RUN);
            return;
        }
        if (!RunVersions.of(connection, BenchRun.BASE_RUN).isEmpty()) {
            throw new IllegalStateException(
                    "run "
                            + BenchRun.BASE_RUN
                            + " has a version but the bench did not finish making it; start"
                            + " again in an empty --dir");
        }
        output.say(
                "Training the base world model (%s, %d SFT steps) on the pretraining slice ...",
                settings.demo().modelPreset(), settings.training().baseSteps());
        final BaseModelInit.Result init;
        try (RunOutput.Live view = output.live()) {
            init =
                    BaseModelInit.run(
                            BaseModelInit.Config.of(
                                    BenchRun.BASE_RUN,
                                    connection,
                                    settings.demo().modelPreset(),
                                    settings.training().baseSteps(),
                                    MAX_TRANSITIONS,
                                    Set.of(EnvKind.ALFWORLD.id()),
                                    DemoSettings.SEED),
                            new SftBar(view, "rwml bench: base model"));
        }
        output.say("Base model published: %d examples", init.examples());
        state.markDone(Step.BASE, BenchRun.BASE_RUN);
    }
}
