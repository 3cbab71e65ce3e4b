package dev.rwml.ops.cli;

import dev.rwml.ops.cli.bench.BenchRun;
import dev.rwml.ops.cli.demo.DemoSettings;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code rwml bench}: base, WM-SFT, RWML and RWML without subsampling, then eval on all. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "The paper's comparison at small scale on the embedded cluster under --dir: one base"
                    + " world model trained by SFT on a pretraining slice; per seed a new RWML data"
                    + " slice and three arms trained from copies of that base on it (WM-SFT, RWML,"
                    + " RWML without too-easy subsampling: easy.keep.probability=1); then `rwml"
                    + " eval` (valid_seen, valid_unseen, drift, the guided agent) on the base and"
                    + " every arm. Writes <dir>/report/ (report.html, report.md, bench.md, CSV).",
            "Resumable: rerun with the same options and --dir; finished steps are skipped and an"
                    + " interrupted arm is trained again into a fresh run."
        })
final class BenchCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--dir",
            defaultValue = ".rwml/bench",
            description = "Cluster data, state, markers and report (default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(
            names = "--seeds",
            description = "Seeds, each with its own RWML data slice (default: 3, 1 with --quick).")
    private Integer seeds;

    @Option(
            names = "--episodes",
            description = "RWML episodes per seed (default: 30, 3 with --quick).")
    private Integer episodes;

    @Option(
            names = "--epochs",
            defaultValue = "1",
            description = "Replays of each slice per arm (default: ${DEFAULT-VALUE}).")
    private int epochs;

    @Option(
            names = "--size",
            defaultValue = "small",
            description = "World-model size: small or tiny (default: ${DEFAULT-VALUE}).")
    private String size;

    @Option(
            names = "--quick",
            description =
                    "A smoke run: tiny model, 1 seed, a few episodes, small held-out sets (used by"
                            + " the integration test).")
    private boolean quick;

    @Override
    public Integer call() throws Exception {
        final DemoSettings demo = DemoSettings.of(size, quick);
        final BenchRun.Settings settings =
                new BenchRun.Settings(
                        dir,
                        demo,
                        seeds != null ? seeds : quick ? 1 : 3,
                        episodes != null ? episodes : quick ? 3 : 30,
                        epochs,
                        quick ? 12 : 100,
                        quick ? 2 : 4,
                        quick ? 200 : 1000,
                        quick ? 2 : 20);
        new BenchRun(settings, spec.commandLine().getOut()).run();
        return 0;
    }
}
