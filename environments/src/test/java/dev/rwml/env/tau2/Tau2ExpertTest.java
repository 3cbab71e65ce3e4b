package dev.rwml.env.tau2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.tau2.airline.AirlineDesk;
import dev.rwml.env.tau2.airline.AirlineTasks;
import dev.rwml.env.tau2.retail.RetailDesk;
import dev.rwml.env.tau2.retail.RetailTasks;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class Tau2ExpertTest {

    /** A domain under test: its train-split desks, its task kinds and one of its write kinds. */
    record Domain(
            String name, LongFunction<Tau2Desk> trainDesk, List<String> kinds, String writeKind) {

        Tau2Desk firstOfKind(final String kind) {
            for (int seed = 0; ; seed++) {
                final Tau2Desk desk = trainDesk.apply(seed);
                if (desk.goldTask().kind().equals(kind)) {
                    return desk;
                }
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Domain> domains() {
        return Stream.of(
                new Domain(
                        "airline",
                        seed -> AirlineDesk.create(Splits.TRAIN, seed),
                        Stream.of(AirlineTasks.TaskKind.values())
                                .map(AirlineTasks.TaskKind::id)
                                .toList(),
                        "cancel_reservation"),
                new Domain(
                        "retail",
                        seed -> RetailDesk.create(Splits.TRAIN, seed),
                        Stream.of(RetailTasks.TaskKind.values())
                                .map(RetailTasks.TaskKind::id)
                                .toList(),
                        "cancel_pending_order"));
    }

    @ParameterizedTest
    @MethodSource("domains")
    void shouldReachGoldDatabaseOnEveryGeneratedTaskWhenFollowingTheExpert(final Domain domain) {
        final Map<String, Integer> kinds = new TreeMap<>();
        for (int seed = 0; seed < 200; seed++) {
            final Tau2Desk desk = domain.trainDesk().apply(seed);
            final ExpertRuns.Run run = ExpertRuns.play(desk);
            assertThat(run.last().reward())
                    .as("task %s (%s): %s", desk.goldTask().id(), desk.goldTask().kind(), run)
                    .isEqualTo(1.0);
            assertThat(desk.databaseMatchesGold()).isTrue();
            final boolean transfer = desk.goldTask().scenario().expectsTransfer();
            assertThat(run.last().observation())
                    .contains(transfer ? UserSimulator.TRANSFER : UserSimulator.STOP);
            kinds.merge(desk.goldTask().kind(), 1, Integer::sum);
        }
        assertThat(kinds.keySet()).containsExactlyInAnyOrderElementsOf(domain.kinds());
    }

    @ParameterizedTest
    @MethodSource("domains")
    void shouldChangeTheDatabaseOnlyThroughTheGoldWritesWhenTheTaskIsAWrite(final Domain domain) {
        final Tau2Desk desk = domain.firstOfKind(domain.writeKind());
        final Object before = desk.databaseSnapshot();
        assertThat(desk.databaseMatchesGold()).isFalse();
        ExpertRuns.play(desk);
        assertThat(desk.databaseSnapshot()).isNotEqualTo(before);
    }
}
