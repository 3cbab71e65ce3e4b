package dev.rwml.ops.cli.status;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import dev.rwml.pipeline.watch.RunStatus;
import dev.rwml.pipeline.watch.RunStatus.DeadLetterBrief;
import dev.rwml.pipeline.watch.RunStatus.DeadLetterSummary;
import dev.rwml.pipeline.watch.RunStatus.StageLag;
import dev.rwml.pipeline.watch.RunStatus.TopicRate;
import dev.rwml.pipeline.watch.RunStatus.VersionInfo;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Renders a {@link RunStatus} as plain-text tables for a terminal, or as JSON for tools. */
public final class StatusReport {

    /** Versions shown in the text table; JSON has them all. */
    static final int TEXT_VERSIONS = 12;

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private static final ObjectMapper JSON =
            new ObjectMapper()
                    .registerModule(
                            new SimpleModule("rwml-status")
                                    .addSerializer(Instant.class, ToStringSerializer.instance))
                    .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private StatusReport() {}

    /** The status as one JSON object (instants as ISO-8601 strings, unknown figures as null). */
    public static String json(final RunStatus status) {
        return jsonValue(status);
    }

    /** Any value as JSON with the same conventions. */
    static String jsonValue(final Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the status as JSON", e);
        }
    }

    /** The status as plain-text tables: stages, versions, topics, dead letters. */
    public static String text(final RunStatus status) {
        final StringBuilder out = new StringBuilder();
        out.append("run ")
                .append(status.run())
                .append(" at ")
                .append(TIME.format(status.collectedAt()))
                .append("\n\n");
        final List<List<String>> stages = new ArrayList<>();
        stages.add(List.of("STAGE", "GROUP", "LAG", "STATE", "BY TOPIC"));
        for (final StageLag s : status.stages()) {
            stages.add(
                    List.of(
                            s.stage(),
                            s.groupId(),
                            Long.toString(s.lag()),
                            s.started() ? "consuming" : "not started",
                            s.lagByTopic().entrySet().stream()
                                    .map(e -> e.getKey() + "=" + e.getValue())
                                    .collect(Collectors.joining(" "))));
        }
        table(out, stages);
        if (status.filter() != null) {
            out.append(
                    String.format(
                            Locale.ROOT,
                            "filter: %d transitions judged, %d easy (%.1f%%), %d passed on to the"
                                    + " curriculum%n",
                            status.filter().judged(),
                            status.filter().easy(),
                            100 * status.filter().easyFraction(),
                            status.filter().kept()));
        }
        out.append('\n');
        if (status.versions().isEmpty()) {
            out.append("versions: none published yet (run `rwml model init` for version 0)\n");
        } else {
            final List<List<String>> versions = new ArrayList<>();
            versions.add(
                    List.of(
                            "VERSION",
                            "CREATED",
                            "OBJECTIVE",
                            "STEPS",
                            "GROUPS",
                            "GROUPS/S",
                            "TRAIN PASS",
                            "GEN PASS",
                            "EASY",
                            "SERVED",
                            "LOSS",
                            "KL"));
            final List<VersionInfo> all = status.versions();
            for (final VersionInfo v :
                    all.subList(Math.max(0, all.size() - TEXT_VERSIONS), all.size())) {
                versions.add(
                        List.of(
                                Long.toString(v.version()),
                                TIME.format(v.createdAt()),
                                v.objective(),
                                Long.toString(v.steps()),
                                Long.toString(v.groups()),
                                number(v.trainedGroupsPerSecond(), "%.2f"),
                                number(v.metrics().get("passRate"), "%.3f"),
                                v.generatedPassRate() == null
                                        ? "-"
                                        : String.format(
                                                Locale.ROOT,
                                                "%.3f (%d)",
                                                v.generatedPassRate(),
                                                v.rewardedGroups()),
                                v.rewardedGroups() == 0 ? "-" : Long.toString(v.easyGroups()),
                                number(v.servedAfterSeconds(), "%.1fs"),
                                number(v.metrics().get("loss"), "%.4f"),
                                number(v.metrics().get("kl"), "%.4f")));
            }
            if (all.size() > TEXT_VERSIONS) {
                out.append("versions: latest ")
                        .append(TEXT_VERSIONS)
                        .append(" of ")
                        .append(all.size())
                        .append('\n');
            }
            table(out, versions);
            out.append(
                    "(TRAIN PASS: pass rate of the groups trained into the version; GEN PASS: of"
                            + " the groups it generated, with their count; SERVED: from its"
                            + " publication to its first prediction)\n");
        }
        out.append('\n');
        final List<List<String>> topics = new ArrayList<>();
        topics.add(List.of("TOPIC", "RECORDS", "RECORDS/S"));
        for (final TopicRate t : status.topics()) {
            topics.add(
                    List.of(
                            t.topic(),
                            t.exists() ? Long.toString(t.records()) : "(missing)",
                            number(t.recordsPerSecond(), "%.1f")));
        }
        table(out, topics);
        out.append('\n');
        final long letters =
                status.deadLetters().stream().mapToLong(DeadLetterSummary::count).sum();
        out.append("dead letters: ").append(letters).append('\n');
        for (final DeadLetterSummary d : status.deadLetters()) {
            if (d.count() == 0) {
                continue;
            }
            out.append("  ").append(d.topic()).append(": ").append(d.count()).append('\n');
            for (final DeadLetterBrief b : d.latest()) {
                out.append(
                        String.format(
                                Locale.ROOT,
                                "    #%d %s %s %s from %s: %s%n",
                                b.offset(),
                                TIME.format(b.failedAt()),
                                b.stage(),
                                b.reason(),
                                b.source(),
                                b.message()));
            }
        }
        if (letters > 0) {
            out.append("  inspect with `rwml dlq --run ").append(status.run()).append(" list`\n");
        }
        return out.toString();
    }

    private static String number(final Double value, final String format) {
        return value == null ? "-" : String.format(Locale.ROOT, format, value);
    }

    private static void table(final StringBuilder out, final List<List<String>> rows) {
        final int columns = rows.get(0).size();
        final int[] widths = new int[columns];
        for (final List<String> row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (final List<String> row : rows) {
            final StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row.get(i));
                if (i < columns - 1) {
                    line.append(" ".repeat(widths[i] - row.get(i).length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
