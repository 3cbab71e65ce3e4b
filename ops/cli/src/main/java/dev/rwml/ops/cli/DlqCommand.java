package dev.rwml.ops.cli;

import dev.rwml.pipeline.deadletters.DeadLetterEntry;
import dev.rwml.pipeline.deadletters.DeadLetterStore;
import dev.rwml.pipeline.deadletters.PayloadPreview;
import dev.rwml.runtime.StageName;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code rwml dlq}: lists a run's dead letters, shows one, and sends them back once fixed. */
@Command(
        name = "dlq",
        footer = {
            "",
            "Examples:",
            "  ./rwml dlq --run r1",
            "  ./rwml dlq --run r1 resend --all --stage reward"
        },
        mixinStandardHelpOptions = true,
        description = {
            "Inspect the dead letters of a run (rwml.<run>.dead-letters) and send their original"
                    + " records back to their source topics once the cause is fixed. Without a"
                    + " subcommand: list."
        },
        subcommands = {
            DlqCommand.ListLetters.class,
            DlqCommand.Show.class,
            DlqCommand.Resend.class,
            CommandLine.HelpCommand.class
        })
final class DlqCommand implements Callable<Integer> {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    @Spec private CommandSpec spec;

    // Checked when used, not by picocli: a required option here would make `rwml dlq list --help`
    // fail on the parent before the subcommand's help is printed.
    @Option(names = "--run", paramLabel = "NAME", description = "The run (required).")
    private String run;

    @Mixin private ClusterOptions cluster;

    @Override
    public Integer call() {
        return list(spec.commandLine().getOut(), Integer.MAX_VALUE, null);
    }

    String topic() {
        if (run == null) {
            throw new ParameterException(
                    spec.commandLine(), "Missing required option: '--run=NAME'");
        }
        return DeadLetterStore.topicOf(run);
    }

    DeadLetterStore store() {
        topic(); // a missing --run is a usage error, named before any connection is tried
        return new DeadLetterStore(cluster.connection());
    }

    int list(final PrintWriter out, final int limit, final String stage) {
        try (DeadLetterStore store = store()) {
            final List<DeadLetterEntry> entries =
                    store.latest(topic(), limit).stream()
                            .filter(
                                    e ->
                                            stage == null
                                                    || e.stage()
                                                            .equals(StageName.parse(stage).id()))
                            .toList();
            out.printf(Locale.ROOT, "%s: %d dead letters shown%n", topic(), entries.size());
            if (!entries.isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "%-8s %-20s %-11s %-22s %-28s %s%n",
                        "OFFSET",
                        "FAILED",
                        "STAGE",
                        "REASON",
                        "SOURCE",
                        "PAYLOAD");
            }
            for (final DeadLetterEntry e : entries) {
                out.printf(
                        Locale.ROOT,
                        "%-8s %-20s %-11s %-22s %-28s %s%n",
                        e.partition() == 0 ? e.offset() : e.partition() + ":" + e.offset(),
                        TIME.format(e.failedAt()),
                        e.stage(),
                        e.reason(),
                        e.source(),
                        e.decoded() ? PayloadPreview.of(e.originalValue(), 48) : e.problem());
            }
            out.flush();
            return 0;
        }
    }

    /** {@code rwml dlq list}: the latest letters, one line each. */
    @Command(
            name = "list",
            footer = {"", "Examples:", "  ./rwml dlq --run r1 list --stage reward --limit 10"},
            mixinStandardHelpOptions = true,
            description =
                    "List dead letters: offset, time, stage, reason, source, payload preview.")
    static final class ListLetters implements Callable<Integer> {
        @ParentCommand private DlqCommand parent;
        @Spec private CommandSpec spec;

        @Option(
                names = "--limit",
                defaultValue = "50",
                description = "Show the newest N (default: ${DEFAULT-VALUE}).")
        private int limit;

        @Option(
                names = "--stage",
                description = "Only letters of this stage (prediction, reward, trainer).")
        private String stage;

        @Override
        public Integer call() {
            return parent.list(spec.commandLine().getOut(), limit, stage);
        }
    }

    /** {@code rwml dlq show N}: one letter in full. */
    @Command(
            name = "show",
            footer = {"", "Examples:", "  ./rwml dlq --run r1 show 42"},
            mixinStandardHelpOptions = true,
            description = "Show one dead letter in full: error, source, headers, key and value.")
    static final class Show implements Callable<Integer> {
        @ParentCommand private DlqCommand parent;
        @Spec private CommandSpec spec;

        @Parameters(paramLabel = "OFFSET", description = "Its offset on the dead-letter topic.")
        private long offset;

        @Option(names = "--partition", defaultValue = "0", description = "Its partition.")
        private int partition;

        @Override
        public Integer call() {
            final PrintWriter out = spec.commandLine().getOut();
            try (DeadLetterStore store = parent.store()) {
                final DeadLetterEntry e =
                        store.at(parent.topic(), partition, offset)
                                .orElseThrow(
                                        () ->
                                                new IllegalArgumentException(
                                                        "no dead letter at "
                                                                + parent.topic()
                                                                + "/"
                                                                + partition
                                                                + "/"
                                                                + offset
                                                                + "; `rwml dlq list` shows the"
                                                                + " offsets"));
                out.printf("dead letter %s/%d/%d%n", e.topic(), e.partition(), e.offset());
                if (!e.decoded()) {
                    out.println("  undecodable: " + e.problem());
                    out.flush();
                    return 1;
                }
                out.println("  stage:   " + e.stage());
                out.println("  reason:  " + e.reason());
                out.println("  error:   " + e.letter().getErrorClass());
                out.println("  message: " + e.message());
                out.println("  source:  " + e.source());
                out.println("  failed:  " + TIME.format(e.failedAt()));
                out.println("  key:     " + PayloadPreview.of(e.originalKey(), 200));
                out.println("  value:   " + PayloadPreview.of(e.originalValue(), 400));
                e.letter()
                        .getOriginalHeaders()
                        .forEach(
                                (name, value) ->
                                        out.println(
                                                "  header "
                                                        + name
                                                        + ": "
                                                        + PayloadPreview.of(bytes(value), 80)));
                out.flush();
                return 0;
            }
        }
    }

    /** {@code rwml dlq resend}: sends original records back to their source topics. */
    @Command(
            name = "resend",
            footer = {
                "",
                "Examples:",
                "  ./rwml dlq --run r1 resend --offset 42",
                "  ./rwml dlq --run r1 resend --all --stage reward"
            },
            mixinStandardHelpOptions = true,
            description = {
                "Send dead letters' original records (key, value, headers) back to their source"
                        + " topics, once the cause is fixed. The letters stay on the dead-letter"
                        + " topic; a record that fails again comes back as a new letter."
            })
    static final class Resend implements Callable<Integer> {
        @ParentCommand private DlqCommand parent;
        @Spec private CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        private Which which;

        @Option(names = "--partition", defaultValue = "0", description = "Partition of --offset.")
        private int partition;

        @Option(names = "--stage", description = "With --all: only letters of this stage.")
        private String stage;

        @Option(names = "--reason", description = "With --all: only letters with this reason.")
        private String reason;

        /** Exactly one of --offset and --all. */
        static final class Which {
            @Option(
                    names = "--offset",
                    paramLabel = "O",
                    description = "Resend the letter at this offset.")
            private Long offset;

            @Option(names = "--all", description = "Resend every letter (see --stage, --reason).")
            private boolean all;
        }

        @Override
        public Integer call() {
            final PrintWriter out = spec.commandLine().getOut();
            try (DeadLetterStore store = parent.store()) {
                final List<DeadLetterEntry> chosen;
                if (which.offset != null) {
                    chosen =
                            List.of(
                                    store.at(parent.topic(), partition, which.offset)
                                            .orElseThrow(
                                                    () ->
                                                            new IllegalArgumentException(
                                                                    "no dead letter at offset "
                                                                            + which.offset
                                                                            + " of "
                                                                            + parent.topic()
                                                                            + "; `rwml dlq list`"
                                                                            + " shows the offsets")));
                } else {
                    chosen =
                            store.all(parent.topic()).stream()
                                    .filter(
                                            e ->
                                                    stage == null
                                                            || e.stage()
                                                                    .equals(
                                                                            StageName.parse(stage)
                                                                                    .id()))
                                    .filter(e -> reason == null || e.reason().equals(reason))
                                    .toList();
                }
                int failed = 0;
                for (final DeadLetterEntry e : chosen) {
                    if (!e.decoded()) {
                        out.printf("skipped #%d: undecodable (%s)%n", e.offset(), e.problem());
                        failed++;
                        continue;
                    }
                    final RecordMetadata sent = store.resend(e);
                    out.printf(
                            Locale.ROOT,
                            "resent #%d (%s from %s) to %s/%d/%d%n",
                            e.offset(),
                            e.reason(),
                            e.source(),
                            sent.topic(),
                            sent.partition(),
                            sent.offset());
                }
                out.printf(Locale.ROOT, "%d resent, %d skipped%n", chosen.size() - failed, failed);
                out.flush();
                return failed == 0 ? 0 : 1;
            }
        }
    }

    private static byte[] bytes(final ByteBuffer buffer) {
        final ByteBuffer view = buffer.duplicate();
        final byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }
}
