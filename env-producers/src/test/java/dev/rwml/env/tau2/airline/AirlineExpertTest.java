package dev.rwml.env.tau2.airline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.tau2.ExpertRuns;
import dev.rwml.env.tau2.Splits;
import dev.rwml.env.tau2.Tau2Desk;
import dev.rwml.env.tau2.UserSimulator;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class AirlineExpertTest {

    @Test
    void shouldReachGoldDatabaseOnEveryGeneratedTaskWhenFollowingTheExpert() {
        final Map<String, Integer> kinds = new TreeMap<>();
        for (int seed = 0; seed < 200; seed++) {
            final Tau2Desk desk = AirlineDesk.create(Splits.TRAIN, seed);
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
        assertThat(kinds.keySet()).containsExactlyInAnyOrderElementsOf(AirlineGenerator.KINDS);
    }

    @Test
    void shouldChangeTheDatabaseOnlyThroughTheGoldWritesWhenTheTaskIsAWrite() {
        final Tau2Desk desk = firstOfKind("cancel_reservation");
        final Object before = desk.databaseSnapshot();
        assertThat(desk.databaseMatchesGold()).isFalse();
        ExpertRuns.play(desk);
        assertThat(desk.databaseSnapshot()).isNotEqualTo(before);
    }

    static Tau2Desk firstOfKind(final String kind) {
        for (int seed = 0; ; seed++) {
            final Tau2Desk desk = AirlineDesk.create(Splits.TRAIN, seed);
            if (desk.goldTask().kind().equals(kind)) {
                return desk;
            }
        }
    }
}
