package dev.rwml.ops.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code rwml completion}: prints the shell completion script that picocli generates from the
 * command definitions, so it never falls behind them.
 */
@Command(
        name = "completion",
        mixinStandardHelpOptions = true,
        description = {
            "Print the completion script of rwml for bash or zsh (one script: zsh runs it"
                    + " through bashcompinit). It completes subcommands, options and the values"
                    + " of options that have a fixed set of them."
        },
        footer = {
            "",
            "Examples:",
            "  source <(./rwml completion bash)    # this shell; add it to ~/.bashrc to keep it",
            "  ./rwml completion zsh > ~/.rwml-completion && echo 'source ~/.rwml-completion'"
                    + " >> ~/.zshrc"
        })
final class CompletionCommand implements Callable<Integer> {

    /** The shells the script serves. */
    enum Shell {
        bash,
        zsh
    }

    @Spec private CommandSpec spec;

    @Parameters(
            arity = "0..1",
            defaultValue = "bash",
            paramLabel = "bash|zsh",
            description = "The shell (default: ${DEFAULT-VALUE}; the script is the same for both).")
    private Shell shell;

    @Override
    public Integer call() {
        final String script = AutoComplete.bash("rwml", spec.root().commandLine());
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
