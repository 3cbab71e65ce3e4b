package dev.rwml.ops.cli;

import dev.rwml.ops.cli.live.LiveView;
import dev.rwml.pipeline.replay.ReplayRun;
import dev.rwml.pipeline.replay.SliceBound;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml replay}: trains a new run on a slice of the transitions log, then ends. */
@Command(
        name = "replay",
        footer = {
            "",
            "Examples:",
            "  ./rwml replay --run exp2 --from-run base --from 0:120,1:98 --epochs 3"
        },
        mixinStandardHelpOptions = true,
        description = {
            "Train a new run on a slice of rwml.transitions: its prediction, reward and trainer"
                    + " stages run in this JVM over [--from, --until) --epochs times, then the"
                    + " trainer publishes a final version and a summary is printed.",
            "Stage settings: --set prediction.KEY=V, reward.KEY=V, trainer.KEY=V, filter.KEY=V"
                    + " (the keys of rwml predict, reward, train and filter); --config FILE takes"
                    + " the same prefixed keys.",
            "With --filter-run RUN, the paper's offline filter runs first: that run's model"
                    + " (version filter.filter.version, default 0) tries every transition of the"
                    + " slice K times, most easy ones are dropped, and the new run trains on the"
                    + " rest (rwml.<run>.curriculum).",
            "Unlike the live pipeline, replay reads a fixed slice (later transitions are"
                    + " skipped), predicts it once per epoch, widens the reward join window to"
                    + " the slice's old event times, and ends by itself."
        })
final class ReplayCommand implements Callable<Integer> {

    @Option(names = "--run", required = true, paramLabel = "NEW", description = "The new run.")
    private String run;

    @Option(
            names = "--from",
            required = true,
            paramLabel = "BOUND",
            description =
                    "Slice start: earliest, latest, an ISO time, offsets 0:120,1:98, or a file of"
                            + " partition:offset lines.")
    private String from;

    @Option(
            names = "--until",
            defaultValue = "latest",
            paramLabel = "BOUND",
            description = "Slice end, exclusive, same forms (default: ${DEFAULT-VALUE}).")
    private String until;

    @Option(
            names = "--epochs",
            defaultValue = "1",
            description = "How many times the slice is predicted (default: ${DEFAULT-VALUE}).")
    private int epochs;

    @Option(
            names = "--from-run",
            paramLabel = "RUN",
            description =
                    "Copy this run's version 0 as the new run's base (else NEW needs its own:"
                            + " `rwml model init --run NEW`).")
    private String fromRun;

    @Option(
            names = "--filter-run",
            paramLabel = "RUN",
            description =
                    "Filter the slice offline with this run's model before training (the"
                            + " paper's difficulty filter); the reward stage then keeps every"
                            + " easy group.")
    private String filterRun;

    @Option(
            names = "--state-dir",
            defaultValue = ".rwml/state/replay",
            description = "Streams state of the replay's stages (default: ${DEFAULT-VALUE}).")
    private Path stateDir;

    @Mixin private ClusterOptions cluster;
    @Mixin private StageSettings settings;
    @Spec private CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        final Map<String, String> all = new LinkedHashMap<>(fileSettings());
        all.putAll(settings.overrides);
        final ReplayRun.Settings s =
                new ReplayRun.Settings(
                        run,
                        Optional.ofNullable(fromRun),
                        SliceBound.parse(from),
                        SliceBound.parse(until),
                        epochs,
                        stateDir.resolve(run),
                        stage(all, "prediction."),
                        stage(all, "reward."),
                        stage(all, "trainer."),
                        Optional.ofNullable(filterRun),
                        stage(all, "filter."));
        new ReplayRun(
                        cluster.connection(),
                        new Progress(spec.commandLine().getOut(), LiveView.interactive()))
                .run(s);
        return 0;
    }

    private Map<String, String> fileSettings() {
        final Map<String, String> out = new LinkedHashMap<>();
        if (settings.file == null) {
            return out;
        }
        final Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(settings.file)) {
            props.load(reader);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read --config " + settings.file + ": " + e.getMessage(), e);
        }
        props.stringPropertyNames().forEach(k -> out.put(k, props.getProperty(k).trim()));
        return out;
    }

    /** The settings under one stage's prefix, the prefix removed; other keys are an error. */
    private static Map<String, String> stage(final Map<String, String> all, final String prefix) {
        final Map<String, String> out = new LinkedHashMap<>();
        all.forEach(
                (k, v) -> {
                    if (!k.startsWith("prediction.")
                            && !k.startsWith("reward.")
                            && !k.startsWith("trainer.")
                            && !k.startsWith("filter.")) {
                        throw new IllegalArgumentException(
                                "replay setting '"
                                        + k
                                        + "' names no stage: prefix it with prediction., reward.,"
                                        + " trainer. or filter. (e.g. prediction.batch.size=4)");
                    }
                    if (k.startsWith(prefix)) {
                        out.put(k.substring(prefix.length()), v);
                    }
                });
        return out;
    }
}
