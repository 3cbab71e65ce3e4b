package dev.rwml.ops.cli.bench;

import dev.rwml.evaluation.EvalReport;
import dev.rwml.evaluation.Interval;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The bench's method x split table: per method (base, WM-SFT, RWML, RWML without subsampling) and
 * held-out split, the pass rate of each seed's model with its bootstrap interval, and the mean over
 * seeds; then the changed-parameter fraction and the guided agent's invalid-action rate.
 */
final class BenchSummary {

    private BenchSummary() {}

    /** Added to an arm's method for its version taken at RWML's number of optimizer steps. */
    static final String MATCHED = ", updates matched to rwml";

    /**
     * The method a model label belongs to: {@code bench-rwml-s2@7} -> {@code rwml}; a label in
     * {@code matched} gets {@link #MATCHED} added.
     */
    static String method(final String label, final Set<String> matched) {
        final String run = label.contains("@") ? label.substring(0, label.indexOf('@')) : label;
        if (run.equals(BenchRun.BASE_RUN)) {
            return "base";
        }
        final String arm = run.replaceFirst("^bench-", "").replaceFirst("-s\\d+(-r\\d+)?$", "");
        return matched.contains(label) ? arm + MATCHED : arm;
    }

    static String markdown(final EvalReport report, final int seeds, final Set<String> matched) {
        final StringBuilder b = new StringBuilder("# rwml bench\n\n");
        b.append(
                String.format(
                        Locale.ROOT,
                        "%d seed(s); each cell: the mean over seeds, then each seed's estimate with"
                                + " its 95%% bootstrap interval over transitions.%n",
                        seeds));
        if (report.models().isEmpty()) {
            return b.toString();
        }
        final List<String> splits = new ArrayList<>();
        report.models().get(0).sets().forEach(s -> splits.add(s.set()));
        b.append("\n## Pass rate at the training reward spec\n\n| method | ");
        b.append(String.join(" | ", splits)).append(" | changed parameters |\n|---|");
        splits.forEach(s -> b.append("---|"));
        b.append("---|\n");
        final Map<String, List<EvalReport.ModelResult>> byMethod = new LinkedHashMap<>();
        report.models()
                .forEach(
                        m ->
                                byMethod.computeIfAbsent(
                                                method(m.label(), matched), k -> new ArrayList<>())
                                        .add(m));
        byMethod.forEach(
                (method, models) -> {
                    b.append("| ").append(method).append(" | ");
                    for (int s = 0; s < splits.size(); s++) {
                        double sum = 0;
                        final List<String> each = new ArrayList<>();
                        for (final EvalReport.ModelResult m : models) {
                            final Interval i = m.sets().get(s).all().pass();
                            sum += i.estimate();
                            each.add(i.format());
                        }
                        b.append(String.format(Locale.ROOT, "**%.3f**: ", sum / models.size()))
                                .append(String.join("; ", each))
                                .append(" | ");
                    }
                    final List<String> drift = new ArrayList<>();
                    for (final EvalReport.ModelResult m : models) {
                        drift.add(
                                m.drift() == null
                                        ? "-"
                                        : String.format(
                                                Locale.ROOT,
                                                "%.4f",
                                                m.drift().parameters().fraction()));
                    }
                    b.append(String.join("; ", drift)).append(" |\n");
                });
        if (!report.agents().isEmpty()) {
            b.append("\n## Guided agent (")
                    .append(report.agent())
                    .append(
                            ")\n\n| agent | split | invalid-action rate | success | steps per"
                                    + " success |\n|---|---|---|---|---|\n");
            for (final EvalReport.AgentResult a : report.agents()) {
                b.append("| ")
                        .append(a.agent())
                        .append(" | ")
                        .append(a.set())
                        .append(" | ")
                        .append(a.invalidRate().format())
                        .append(" | ")
                        .append(a.success().format())
                        .append(" | ")
                        .append(a.stepsPerSuccess().format())
                        .append(" |\n");
            }
        }
        return b.toString();
    }
}
