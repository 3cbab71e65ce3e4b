package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.RwmlProcesses.endOffsets;
import static dev.rwml.ops.cli.RwmlProcesses.readCommitted;
import static dev.rwml.ops.cli.RwmlProcesses.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.rwml.events.DeadLetter;
import dev.rwml.events.ModelVersion;
import dev.rwml.events.OffsetRange;
import dev.rwml.events.PredictionGroup;
import dev.rwml.events.RewardedGroup;
import dev.rwml.events.Transition;
import dev.rwml.ops.cli.RwmlProcesses.Child;
import dev.rwml.pipeline.watch.RunObserver;
import dev.rwml.runtime.settings.Connection;
import dev.rwml.schemas.serde.EventSerdes;
import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pipeline's promise under process-level faults: the three stages, the cluster ({@code rwml
 * up}: broker and registry) and the environment producers each run as their own {@code ./rwml}
 * process; the test SIGKILLs stages at random points and restarts them after a random pause, and
 * stops the cluster for {@link #OUTAGE} (broker and registry gone together) while the stages are
 * busy, then restarts it on the same log and registry storage; it also SIGKILLs an environment
 * producer partway and runs the same command again, whose transitions the stages have partly seen
 * (they must refuse those as duplicates). Transitions arrive in bursts between the faults.
 * Afterwards everything is read back {@code read_committed}: every transition predicted exactly
 * once, every prediction rewarded exactly once, versions strictly increasing with each version's
 * lineage contiguous with its parent's and never overlapping, and no dead letter but the rerun
 * producer's duplicates (this data has no bad record, so any other letter would be an outage
 * dead-lettered or a crash's debris).
 *
 * <p>A second test runs two instances each of the prediction and reward stages: one of each dies,
 * the other takes its partitions, and the same checks hold. It runs with the long form (or {@code
 * -Drwml.chaos.scaleout=true}), not in the test command, which it would lengthen by 2-3 minutes.
 *
 * <p>The short form (one kill of each stage and of a producer, one cluster restart) runs in the
 * test command. The long form: {@code mvn -B -o -pl ops/cli verify -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ChaosIT -Drwml.chaos.kills=5
 * -Drwml.chaos.restarts=2 -Drwml.chaos.seed=7 -Drwml.chaos.scaleout=true}. It prints a table of
 * faults, records per topic, losses, duplicates, dead letters and recovery times.
 */
@Tag("system")
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class ChaosIT {

    private static final String RUN = "chaos";
    private static final int KILLS = Integer.getInteger("rwml.chaos.kills", 1);
    private static final int RESTARTS = Integer.getInteger("rwml.chaos.restarts", 1);
    private static final long SEED = Long.getLong("rwml.chaos.seed", 1);

    /** How long the broker and the registry stay down: the registry outage of 30 s. */
    private static final Duration OUTAGE = Duration.ofSeconds(30);

    private static final Duration RECOVER = Duration.ofMinutes(4);
    private static final Duration STOP = Duration.ofSeconds(60);

    private final Random random = new Random(SEED);
    private final Map<String, Integer> incarnations = new HashMap<>();
    private final Map<String, Child> stages = new LinkedHashMap<>();

    @RegisterExtension final RwmlProcesses rwml = new RwmlProcesses("chaos");

    private String bootstrap;
    private String registry;
    private int bursts;
    private int producerReruns;
    private Set<String> pretraining;

    /** One injected fault and how long the pipeline took to catch up after it. */
    private record Fault(String kind, Duration pause, Duration recovery) {}

    @Test
    void shouldLoseNothingAndDuplicateNothingWhenProcessesDieAndTheClusterRestarts()
            throws Exception {
        final RwmlProcesses.Cluster cluster = startPipeline(1);
        final List<String> schedule = new ArrayList<>();
        for (int i = 0; i < KILLS; i++) {
            schedule.addAll(List.of("predict-1", "reward-1", "train-1", "env"));
        }
        for (int i = 0; i < RESTARTS; i++) {
            schedule.add("cluster");
        }
        Collections.shuffle(schedule, random);

        final List<Fault> faults = new ArrayList<>();
        for (final String target : schedule) {
            awaitRandomPoint();
            final Duration pause;
            if (target.equals("cluster")) {
                pause = OUTAGE;
                restartCluster(cluster);
            } else if (target.equals("env")) {
                pause = Duration.ofMillis(random.nextInt(5_000));
                killProducerAndRerun(pause);
            } else {
                pause = Duration.ofMillis(random.nextInt(5_000));
                kill(target);
                await().pollDelay(pause).atMost(pause.plusSeconds(5)).until(() -> true);
                start(target);
            }
            final long t0 = System.nanoTime();
            burst();
            awaitCaughtUp();
            faults.add(new Fault(target, pause, Duration.ofNanos(System.nanoTime() - t0)));
        }
        stopAndAssertExactlyOnce(faults);
    }

    /**
     * Scale-out: two instances each of the prediction and reward stages share the partitions. One
     * instance of each is SIGKILLed in turn; the other takes its partitions and catches up alone
     * (the recovery time measured), then the killed one comes back and the partitions spread again.
     * Every exactly-once check of the test above still holds.
     */
    @Test
    @EnabledIfSystemProperty(named = "rwml.chaos.scaleout", matches = "true")
    void shouldStayExactlyOnceWhenOneOfTwoInstancesDiesAndItsPartitionsMove() throws Exception {
        startPipeline(2);
        final List<Fault> faults = new ArrayList<>();
        for (final String stage : List.of("predict", "reward")) {
            final String target = stage + "-" + (1 + random.nextInt(2));
            awaitRandomPoint();
            kill(target);
            final long t0 = System.nanoTime();
            burst();
            awaitCaughtUp();
            faults.add(
                    new Fault(
                            target + " (survivor alone)",
                            Duration.ZERO,
                            Duration.ofNanos(System.nanoTime() - t0)));
            start(target);
            final long t1 = System.nanoTime();
            burst();
            awaitCaughtUp();
            faults.add(
                    new Fault(
                            target + " back",
                            Duration.ZERO,
                            Duration.ofNanos(System.nanoTime() - t1)));
        }
        stopAndAssertExactlyOnce(faults);
    }

    /**
     * Starts the cluster, the pretraining data, version 0, {@code instances} instances each of the
     * prediction and reward stages and one trainer, and a first burst of transitions.
     */
    private RwmlProcesses.Cluster startPipeline(final int instances) throws Exception {
        final RwmlProcesses.Cluster cluster = rwml.up("--run " + RUN);
        bootstrap = cluster.bootstrap();
        registry = cluster.registry();
        rwml.initTinyModel(RUN, 30);
        pretraining = ids(transitions(), Transition::getTransitionId);
        for (final String stage : List.of("predict", "reward")) {
            for (int i = 1; i <= instances; i++) {
                start(stage + "-" + i);
            }
        }
        start("train-1");
        burst();
        return cluster;
    }

    /** Some way into processing the burst just produced. */
    private void awaitRandomPoint() {
        final Duration into = Duration.ofMillis(500 + random.nextInt(6_000));
        await().pollDelay(into).atMost(into.plusSeconds(5)).until(() -> running(live()));
    }

    /** Stops every stage cleanly, reads everything back and checks the promise. */
    private void stopAndAssertExactlyOnce(final List<Fault> faults) throws InterruptedException {
        for (final Child stage : stages.values()) {
            stage.process().destroy();
            RwmlProcesses.assertExits(stage, STOP, 0);
        }

        final RunTopics topics = TopicCatalog.defaults().run(RUN);
        final Map<String, ?> serdes = EventSerdes.registryConfig(registry);
        final Set<String> rwmlSlice = ids(transitions(), Transition::getTransitionId);
        rwmlSlice.removeAll(pretraining);
        final Map<String, Long> predicted =
                counts(
                        readCommitted(
                                bootstrap,
                                topics.predictions().name(),
                                topics.predictions().valueSerde(serdes).deserializer()),
                        PredictionGroup::getTransitionId);
        final Map<String, Long> rewarded =
                counts(
                        readCommitted(
                                bootstrap,
                                topics.rewards().name(),
                                topics.rewards().valueSerde(serdes).deserializer()),
                        RewardedGroup::getTransitionId);
        final List<DeadLetter> letters =
                readCommitted(
                        bootstrap,
                        topics.deadLetters().name(),
                        topics.deadLetters().valueSerde(serdes).deserializer());
        final List<ModelVersion> versions =
                readCommitted(
                        bootstrap,
                        topics.models().name(),
                        topics.models().valueSerde(serdes).deserializer());

        System.out.println(
                table(faults, rwmlSlice, predicted, rewarded, letters, versions, topics));

        // only the transitions a killed producer had published before the same command ran again
        assertThat(letters)
                .as("dead letters (no record here is bad; a rerun producer's are duplicates)")
                .allSatisfy(
                        l ->
                                assertThat(l.getErrorMessage())
                                        .as("%s dead letter", l.getStage())
                                        .contains("duplicate transition id"));
        if (producerReruns == 0) {
            assertThat(letters).isEmpty();
        }
        assertThat(predicted.keySet()).as("predicted transitions").isEqualTo(rwmlSlice);
        assertThat(duplicated(predicted)).as("transitions predicted twice").isEmpty();
        assertThat(rewarded.keySet()).as("rewarded predictions").isEqualTo(rwmlSlice);
        assertThat(duplicated(rewarded)).as("predictions rewarded twice").isEmpty();
        assertLineage(versions, topics.rewards().name());
    }

    // ---- faults ----

    /**
     * Starts instance {@code key} ({@code predict-2}: the prediction stage's second instance), each
     * instance with a state directory of its own.
     */
    private void start(final String key) throws IOException {
        final int n = incarnations.merge(key, 1, Integer::sum);
        final String name = key + "-" + n;
        final String stage = key.substring(0, key.indexOf('-'));
        final Child child =
                switch (stage) {
                    case "predict" ->
                            rwml.start(
                                    name,
                                    "predict --run "
                                            + RUN
                                            + " --set group.size=4 --set sampling.max.new.tokens=32"
                                            + " --set batch.size=4",
                                    "--set",
                                    "state.dir=" + rwml.work().resolve("prediction-state-" + key));
                    case "reward" ->
                            rwml.start(
                                    name,
                                    "reward --run " + RUN + " --set reward.spec=TEXT=cosine:0.6",
                                    "--set",
                                    "state.dir=" + rwml.work().resolve("reward-state-" + key));
                    default ->
                            rwml.start(
                                    name,
                                    "train --run "
                                            + RUN
                                            + " --set groups.per.step=4 --set publish.every.steps=1"
                                            + " --set learning.rate=3e-3");
                };
        stages.put(key, child);
    }

    /** SIGKILL: no shutdown hook runs, nothing is committed or left cleanly. */
    private void kill(final String key) throws InterruptedException {
        final Process process = stages.remove(key).process();
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("%s killed", key).isTrue();
    }

    /**
     * Stops {@code rwml up}, keeps broker and registry down for {@link #OUTAGE}, starts it again.
     */
    private void restartCluster(final RwmlProcesses.Cluster cluster) throws Exception {
        cluster.up().process().destroy();
        RwmlProcesses.assertExits(cluster.up(), STOP, 0);
        await().pollDelay(OUTAGE).atMost(OUTAGE.plusSeconds(30)).until(() -> running(live()));
        final RwmlProcesses.Cluster again = rwml.up("--run " + RUN);
        assertThat(again.bootstrap()).as("the restarted broker's address").isEqualTo(bootstrap);
        assertThat(again.registry()).as("the restarted registry's address").isEqualTo(registry);
    }

    private List<Child> live() {
        return List.copyOf(stages.values());
    }

    /**
     * SIGKILLs an environment producer some way into its episodes and, after {@code pause}, runs
     * the same command again to its end: the transitions the killed one published come again, and
     * each stage must refuse them as duplicates (the only dead letters allowed).
     */
    private void killProducerAndRerun(final Duration pause) throws Exception {
        bursts++;
        final String command =
                "env run --env alfworld --agents 2 --episodes 6 --policy epsilon --seed "
                        + (100 + bursts);
        final Child producer = rwml.start("env-" + bursts + "-killed", command);
        final Duration into = Duration.ofMillis(3_000 + random.nextInt(6_000));
        await().pollDelay(into).atMost(into.plusSeconds(5)).until(() -> true);
        producer.process().destroyForcibly();
        assertThat(producer.process().waitFor(30, TimeUnit.SECONDS)).as("env killed").isTrue();
        await().pollDelay(pause).atMost(pause.plusSeconds(5)).until(() -> running(live()));
        rwml.runToEnd("env-" + bursts + "-again", command);
        producerReruns++;
    }

    /** A few more episodes, each burst with its own seed. */
    private void burst() throws Exception {
        bursts++;
        rwml.runToEnd(
                "env-" + bursts,
                "env run --env alfworld --agents 2 --episodes 3 --policy epsilon --seed "
                        + (100 + bursts));
    }

    /** Until every stage has consumed everything its inputs hold (lag 0 for each). */
    private void awaitCaughtUp() {
        await("every stage caught up")
                .atMost(RECOVER)
                .pollInterval(Duration.ofSeconds(3))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            running(live());
                            try (RunObserver observer =
                                    new RunObserver(RUN, Connection.of(bootstrap, registry))) {
                                final RunObserver.Observation o = observer.observe();
                                assertThat(o.stages())
                                        .allSatisfy(s -> assertThat(s.started()).isTrue());
                                assertThat(o.lagByStage())
                                        .as("lag by stage")
                                        .allSatisfy((stage, lag) -> assertThat(lag).isZero());
                            }
                        });
    }

    // ---- read back ----

    private List<Transition> transitions() {
        return readCommitted(
                bootstrap,
                TopicCatalog.TRANSITIONS,
                TopicCatalog.defaults()
                        .transitions()
                        .valueSerde(EventSerdes.registryConfig(registry))
                        .deserializer());
    }

    /**
     * Versions strictly increasing, each the child of the one before, and per partition of the
     * rewards topic each version's range starting where its parent's ended: none trained twice,
     * none skipped.
     */
    private void assertLineage(final List<ModelVersion> versions, final String rewardsTopic) {
        assertThat(versions)
                .extracting(ModelVersion::getVersion)
                .isSorted()
                .doesNotHaveDuplicates();
        final Map<Integer, Long> next = new TreeMap<>();
        for (int i = 1; i < versions.size(); i++) {
            final ModelVersion v = versions.get(i);
            assertThat(v.getParentVersion())
                    .as("parent of version %d", v.getVersion())
                    .isEqualTo(versions.get(i - 1).getVersion());
            for (final OffsetRange r : v.getLineage()) {
                if (!r.getTopic().equals(rewardsTopic)) {
                    continue;
                }
                final Long expected = next.get(r.getPartition());
                if (expected != null) {
                    assertThat(r.getFromOffset())
                            .as(
                                    "version %d on partition %d starts where its parent ended",
                                    v.getVersion(), r.getPartition())
                            .isEqualTo(expected);
                }
                assertThat(r.getUntilOffset()).isGreaterThanOrEqualTo(r.getFromOffset());
                next.put(r.getPartition(), r.getUntilOffset());
            }
        }
        assertThat(versions.size()).as("versions published after version 0").isGreaterThan(1);
    }

    private String table(
            final List<Fault> faults,
            final Set<String> slice,
            final Map<String, Long> predicted,
            final Map<String, Long> rewarded,
            final List<DeadLetter> letters,
            final List<ModelVersion> versions,
            final RunTopics topics) {
        final StringBuilder out = new StringBuilder("\nChaosIT (seed " + SEED + ")\n");
        out.append(String.format("%-26s %10s %12s%n", "fault", "pause", "recovered in"));
        for (final Fault f : faults) {
            out.append(
                    String.format(
                            "%-26s %9.1fs %11.1fs%n",
                            f.kind(), f.pause().toMillis() / 1e3, f.recovery().toMillis() / 1e3));
        }
        out.append(String.format("%-26s %8s %6s %10s%n", "records", "count", "lost", "duplicated"));
        out.append(
                String.format(
                        "%-26s %8d %6s %10s%n", "transitions (after v0)", slice.size(), "-", "-"));
        out.append(row(topics.predictions().name(), slice, predicted));
        out.append(row(topics.rewards().name(), slice, rewarded));
        out.append(
                String.format(
                        "%-26s %8d (latest %d)%n",
                        topics.models().name(),
                        versions.size(),
                        versions.isEmpty() ? -1 : versions.get(versions.size() - 1).getVersion()));
        out.append("dead letters: ")
                .append(
                        letters.isEmpty()
                                ? "none"
                                : letters.stream()
                                        .collect(
                                                Collectors.groupingBy(
                                                        l -> l.getStage() + " " + l.getErrorClass(),
                                                        Collectors.counting())))
                .append('\n');
        final Map<Integer, Long> ends = new TreeMap<>();
        endOffsets(bootstrap, topics.rewards().name())
                .forEach((tp, offset) -> ends.put(tp.partition(), offset));
        out.append("end offsets of ")
                .append(topics.rewards().name())
                .append(": ")
                .append(ends)
                .append('\n');
        return out.toString();
    }

    private static String row(
            final String topic, final Set<String> slice, final Map<String, Long> counts) {
        final long lost = slice.stream().filter(id -> !counts.containsKey(id)).count();
        return String.format(
                "%-26s %8d %6d %10d%n",
                topic,
                counts.values().stream().mapToLong(Long::longValue).sum(),
                lost,
                duplicated(counts).size());
    }

    private static <V> Set<String> ids(final List<V> values, final Function<V, String> id) {
        return values.stream().map(id).collect(Collectors.toCollection(TreeSet::new));
    }

    private static <V> Map<String, Long> counts(
            final List<V> values, final Function<V, String> id) {
        return values.stream()
                .collect(Collectors.groupingBy(id, TreeMap::new, Collectors.counting()));
    }

    private static List<String> duplicated(final Map<String, Long> counts) {
        return counts.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList();
    }
}
