package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.ops.cli.CliRunner.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HelpAndCompletionTest {

    @Test
    void shouldEndEveryCommandsHelpWithExamples() {
        final List<String> without = new ArrayList<>();
        for (final CommandLine command : everyCommand(Rwml.commandLine())) {
            if (!command.getUsageMessage().contains("Example")) {
                without.add(command.getCommandSpec().qualifiedName());
            }
        }
        assertThat(without).as("commands whose --help has no example").isEmpty();
    }

    /**
     * {@code --help} works on every command whatever else is missing, as a new user types it: an
     * option of the command's own named {@code --version}, or a required option of its parent, once
     * hid it behind "Missing required option".
     */
    @Test
    void shouldPrintUsageForHelpOnEveryCommandWithNothingElseGiven() {
        final List<String> failing = new ArrayList<>();
        for (final CommandLine command : everyCommand(Rwml.commandLine())) {
            if (command.getCommand() instanceof CommandLine.HelpCommand) {
                continue;
            }
            final List<String> args = new ArrayList<>();
            for (CommandLine c = command; c.getParent() != null; c = c.getParent()) {
                args.add(0, c.getCommandName());
            }
            args.add("--help");
            final Result help = rwml(args.toArray(String[]::new));
            if (help.code() != 0 || !help.out().startsWith("Usage: ")) {
                failing.add(String.join(" ", args) + " -> " + help.code() + " " + help.err());
            }
        }
        assertThat(failing).as("commands whose --help does not print the usage").isEmpty();
    }

    @Test
    void shouldCompleteEverySubcommandAndTheirOptions() {
        final Result bash = rwml("completion", "bash");
        assertThat(bash.code()).isZero();
        for (final CommandLine command : everyCommand(Rwml.commandLine())) {
            assertThat(bash.out())
                    .as("the script names %s", command.getCommandSpec().qualifiedName())
                    .contains(command.getCommandName());
        }
        assertThat(bash.out())
                .contains("complete -F _complete_rwml")
                .contains("--data-dir")
                .contains("--bootstrap-servers")
                .contains("--client-config")
                .contains("--timeout");
    }

    @Test
    void shouldPrintTheSameScriptForZshWhichRunsItThroughBashcompinit() {
        final Result zsh = rwml("completion", "zsh");
        assertThat(zsh.code()).isZero();
        assertThat(zsh.out()).isEqualTo(rwml("completion", "bash").out()).contains("bashcompinit");
    }

    @Test
    void shouldRefuseAShellItHasNoScriptFor() {
        final Result fish = rwml("completion", "fish");
        assertThat(fish.code()).isEqualTo(2);
        assertThat(fish.err()).contains("fish").contains("bash").contains("zsh");
    }

    /** The command and all its subcommands, depth first, each once (aliases are skipped). */
    private static List<CommandLine> everyCommand(final CommandLine root) {
        final List<CommandLine> all = new ArrayList<>();
        all.add(root);
        root.getSubcommands().values().stream()
                .distinct()
                .forEach(sub -> all.addAll(everyCommand(sub)));
        return all;
    }
}
