package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.RewardedGroup;
import org.junit.jupiter.api.Test;

class GroupVerdictTest {

    private final RewardedGroup fromV3 = Groups.group("t/1/0", 3, 4, 64);

    @Test
    void shouldTrainAGroupExactlyAtTheStalenessBound() {
        assertThat(GroupVerdict.of(fromV3, 7, 4, Objective.GRPO)).isEqualTo(GroupVerdict.TRAIN);
    }

    @Test
    void shouldDropAGroupOneVersionBeyondTheBound() {
        assertThat(GroupVerdict.of(fromV3, 8, 4, Objective.GRPO)).isEqualTo(GroupVerdict.STALE);
    }

    @Test
    void shouldSkipGroupsTheRewardStageDidNotKeep() {
        assertThat(GroupVerdict.of(Groups.notKept(fromV3), 3, 4, Objective.GRPO))
                .isEqualTo(GroupVerdict.NOT_KEPT);
    }

    @Test
    void shouldSkipGroupsWithoutAnyNonZeroAdvantage() {
        assertThat(GroupVerdict.of(Groups.zeroAdvantage(fromV3), 3, 4, Objective.GRPO))
                .isEqualTo(GroupVerdict.ZERO_ADVANTAGE);
    }

    @Test
    void shouldTrainEveryGroupUnderSftBecauseItsTargetIsTheObservedState() {
        assertThat(GroupVerdict.of(Groups.zeroAdvantage(fromV3), 100, 4, Objective.SFT))
                .isEqualTo(GroupVerdict.TRAIN);
    }

    @Test
    void shouldRefuseAGroupOfThisRunNewerThanTheTrainersVersion() {
        assertThat(GroupVerdict.fromTheFuture(fromV3, "r", 2))
                .contains("negative staleness")
                .contains("version 3 of run r")
                .contains("current version 2");
        assertThat(GroupVerdict.fromTheFuture(fromV3, "r", 3)).isNull();
    }

    @Test
    void shouldReadAGroupWithoutAGeneratingRunAsGeneratedByItsOwnRun() {
        final RewardedGroup legacy =
                RewardedGroup.newBuilder(fromV3).setGeneratingRun(null).build();
        assertThat(GroupVerdict.fromTheFuture(legacy, "r", 0)).isNotNull();
    }

    @Test
    void shouldNeverCompareTheVersionsOfAnotherRunsRescoredPredictions() {
        final RewardedGroup rescored =
                RewardedGroup.newBuilder(fromV3).setGeneratingRun("original").build();
        assertThat(GroupVerdict.fromTheFuture(rescored, "r", 0)).isNull();
    }
}
