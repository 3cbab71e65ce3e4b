package dev.rwml.ops.cli;

import dev.rwml.runtime.errors.ErrorLine;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code rwml} command: one entry point whose subcommands run the pipeline's parts. */
@Command(
        name = "rwml",
        footer = {"", "Examples:", "  ./rwml demo --quick", "  ./rwml doctor"},
        mixinStandardHelpOptions = true,
        versionProvider = Rwml.Version.class,
        description = "Continual Reinforcement World Model Learning on Apache Kafka.",
        subcommands = {
            // One line per subcommand.
            UpCommand.class,
            EnvCommand.class,
            DemoCommand.class,
            ModelCommand.class,
            ModelsCommand.class,
            EvalCommand.class,
            BenchCommand.class,
            FilterCommand.class,
            PredictCommand.class,
            ServeCommand.class,
            RewardCommand.class,
            RescoreCommand.class,
            ReplayCommand.class,
            TrainCommand.class,
            StatusCommand.class,
            DlqCommand.class,
            DoctorCommand.class,
            CompletionCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Rwml implements Runnable {

    @CommandLine.Spec private CommandLine.Model.CommandSpec spec;

    /** Applies to every subcommand: {@code rwml up --verbose} and {@code rwml --verbose up}. */
    @Option(
            names = {"-v", "--verbose"},
            scope = ScopeType.INHERIT,
            description = "Log at DEBUG for rwml and INFO for Kafka and the registry.")
    void verbose(final boolean verbose) {
        if (verbose) {
            Logging.verbose();
        }
    }

    public static void main(final String[] args) {
        Logging.chooseFile(args);
        System.exit(commandLine().execute(args));
    }

    /** The command line with every subcommand; tests execute it in-process. */
    static CommandLine commandLine() {
        final CommandLine cli = new CommandLine(new Rwml());
        addHelpExamples(cli);
        return cli.setParameterExceptionHandler(
                        (e, args) -> {
                            // One line, as for every other error; the usage is one --help away.
                            final CommandLine failed = e.getCommandLine();
                            failed.getErr()
                                    .println(
                                            "rwml: "
                                                    + e.getMessage()
                                                    + " (`"
                                                    + failed.getCommandSpec().qualifiedName()
                                                    + " --help` shows the options)");
                            return failed.getCommandSpec().exitCodeOnInvalidInput();
                        })
                .setExecutionExceptionHandler(
                        (e, commandLine, parseResult) -> {
                            // The line names the root cause and the fix; the trace goes to the
                            // log file (and the terminal with --verbose).
                            commandLine.getErr().println("rwml: " + message(e, commandLine));
                            LoggerFactory.getLogger(Rwml.class).info("rwml failed", e);
                            return commandLine.getCommandSpec().exitCodeOnExecutionException();
                        });
    }

    /** Gives picocli's {@code help} subcommands examples, as every other command has. */
    private static void addHelpExamples(final CommandLine command) {
        for (final CommandLine sub : command.getSubcommands().values()) {
            if (sub.getCommand() instanceof CommandLine.HelpCommand) {
                final String parent =
                        command.getCommandSpec().qualifiedName().replaceFirst("^rwml", "./rwml");
                final String first = command.getSubcommands().keySet().iterator().next();
                sub.getCommandSpec()
                        .usageMessage()
                        .footer("", "Examples:", "  " + parent + " help " + first);
            } else {
                addHelpExamples(sub);
            }
        }
    }

    /**
     * The line of a failed command ({@link ErrorLine}), naming the settings of the connection the
     * command used and the client config file they came from.
     */
    private static String message(final Exception e, final CommandLine commandLine) {
        final ClusterOptions cluster = clusterOptions(commandLine.getCommandSpec());
        if (cluster != null) {
            try {
                return ErrorLine.of(e, cluster.connection(), cluster.clientConfigName());
            } catch (RuntimeException unresolved) {
                // No connection to name (often the very failure): the chain alone names the cause.
            }
        }
        return ErrorLine.of(e);
    }

    /** The command's cluster options, wherever among its mixins they are. */
    private static ClusterOptions clusterOptions(final CommandLine.Model.CommandSpec spec) {
        if (spec.userObject() instanceof ClusterOptions cluster) {
            return cluster;
        }
        for (final CommandLine.Model.CommandSpec mixin : spec.mixins().values()) {
            final ClusterOptions found = clusterOptions(mixin);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Name a subcommand.");
    }

    /** Reports the version recorded in the jar's manifest by the build. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            final String v = Rwml.class.getPackage().getImplementationVersion();
            return new String[] {"rwml " + (v == null ? "(development build)" : v)};
        }
    }
}
