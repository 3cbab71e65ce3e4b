package dev.rwml.ops.cli.status;

import dev.rwml.pipeline.watch.RunProgress;
import dev.rwml.pipeline.watch.RunStatus;
import dev.rwml.pipeline.watch.RunStatus.DeadLetterBrief;
import dev.rwml.pipeline.watch.RunStatus.DeadLetterSummary;
import dev.rwml.pipeline.watch.RunStatus.StageLag;
import dev.rwml.pipeline.watch.RunStatus.TopicRate;
import dev.rwml.pipeline.watch.RunStatus.VersionInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A hand-made status with every section filled, for rendering tests. */
final class StatusFixtures {

    static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    private StatusFixtures() {}

    static RunStatus sample() {
        return new RunStatus(
                "exp1",
                T0.plusSeconds(120),
                List.of(
                        new StageLag(
                                "prediction",
                                "rwml-exp1-prediction",
                                Map.of("rwml.transitions", 42L),
                                false),
                        new StageLag(
                                "reward",
                                "rwml-exp1-reward",
                                Map.of("rwml.exp1.predictions", 3L, "rwml.transitions", 0L),
                                true),
                        new StageLag(
                                "trainer",
                                "rwml-exp1-trainer",
                                Map.of("rwml.exp1.rewards", 0L),
                                true)),
                List.of(
                        new VersionInfo(
                                0,
                                null,
                                T0,
                                "init",
                                300,
                                0,
                                null,
                                Map.of("loss", 2.5),
                                10,
                                0.25,
                                2,
                                null),
                        new VersionInfo(
                                1,
                                0L,
                                T0.plusSeconds(40),
                                "grpo",
                                4,
                                80,
                                2.0,
                                Map.of("passRate", 0.375, "loss", 0.0123, "kl", 0.0004),
                                0,
                                null,
                                0,
                                0.8)),
                List.of(
                        new TopicRate("rwml.transitions", true, 500, 500, 12.5),
                        new TopicRate("rwml.exp1.models", false, 0, 0, null)),
                List.of(
                        new DeadLetterSummary(
                                "rwml.exp1.dead-letters",
                                1,
                                List.of(
                                        new DeadLetterBrief(
                                                0,
                                                "prediction",
                                                "UNKNOWN_SCHEMA",
                                                "rwml.transitions/2/17",
                                                T0.plusSeconds(5),
                                                "schema id 99 is not registered")))),
                new RunProgress.FilterCounts(112, 60, 83));
    }
}
