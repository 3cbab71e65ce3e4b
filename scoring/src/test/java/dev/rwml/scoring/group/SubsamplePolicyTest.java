package dev.rwml.scoring.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.rwml.events.Difficulty;
import dev.rwml.events.NextStateKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubsamplePolicyTest {

    private static List<String> ids(final int n) {
        final List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add("alfworld/ep-" + (i / 30) + "/" + (i % 30));
        }
        return ids;
    }

    private static List<Boolean> decisions(final SubsamplePolicy policy, final List<String> ids) {
        final List<Boolean> kept = new ArrayList<>(ids.size());
        for (final String id : ids) {
            kept.add(policy.decide(id, Difficulty.EASY).kept());
        }
        return kept;
    }

    @Test
    void shouldKeepTheConfiguredShareOfTenThousandEasyGroups() {
        final List<Boolean> kept = decisions(SubsamplePolicy.paperDefaults(), ids(10_000));
        final long count = kept.stream().filter(k -> k).count();
        assertThat(count / 10_000.0).isCloseTo(0.1, within(0.01));
    }

    @Test
    void shouldMakeTheSameDecisionsForTheSameIdsAndSeed() {
        final List<String> ids = ids(10_000);
        final SubsamplePolicy policy =
                new SubsamplePolicy(0.1, true, 42, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1);
        assertThat(decisions(policy, ids))
                .isEqualTo(
                        decisions(
                                new SubsamplePolicy(
                                        0.1, true, 42, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1),
                                ids));
        assertThat(decisions(policy, ids))
                .isNotEqualTo(
                        decisions(
                                new SubsamplePolicy(
                                        0.1, true, 43, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1),
                                ids));
    }

    @Test
    void shouldKeepEveryInformativeGroupAndHardGroupsByOption() {
        assertThat(SubsamplePolicy.paperDefaults().decide("x", Difficulty.INFORMATIVE))
                .isEqualTo(KeepDecision.INFORMATIVE);
        assertThat(
                        new SubsamplePolicy(0.1, true, 0, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1)
                                .decide("x", Difficulty.HARD))
                .isEqualTo(KeepDecision.HARD_KEPT);
        assertThat(
                        new SubsamplePolicy(0.1, false, 0, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1)
                                .decide("x", Difficulty.HARD))
                .isEqualTo(KeepDecision.HARD_DROPPED);
    }

    @Test
    void shouldKeepAllOrNoEasyGroupsAtTheBounds() {
        final List<String> ids = ids(1000);
        assertThat(
                        decisions(
                                new SubsamplePolicy(
                                        1.0, true, 0, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1),
                                ids))
                .doesNotContain(false);
        assertThat(
                        decisions(
                                new SubsamplePolicy(
                                        0.0, true, 0, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 1),
                                ids))
                .doesNotContain(true);
    }

    @Test
    void shouldSpreadHashesUniformlyOverTheUnitInterval() {
        final int[] buckets = new int[10];
        for (final String id : ids(10_000)) {
            final double u = SubsamplePolicy.unitHash(id, 7);
            assertThat(u).isBetween(0.0, 1.0).isNotEqualTo(1.0);
            buckets[(int) (u * 10)]++;
        }
        for (final int bucket : buckets) {
            assertThat(bucket).isBetween(900, 1100);
        }
    }

    @Test
    void shouldJudgeEasyByTheDataStageThresholdNotByAllSamplesPassing() {
        final SubsamplePolicy paper = SubsamplePolicy.paperDefaults();
        // Every sample passes the training threshold, none the data-stage 0.9: not too easy.
        assertThat(
                        paper.difficulty(
                                NextStateKind.TEXT,
                                new double[] {0.85, 0.86, 0.84, 0.88},
                                new double[] {1, 1, 1, 1}))
                .isEqualTo(Difficulty.INFORMATIVE);
        // Seven of eight pass and one is a near-paraphrase: too easy, whatever the others did.
        assertThat(
                        paper.difficulty(
                                NextStateKind.TEXT,
                                new double[] {0.95, 0.81, 0.82, 0.83, 0.84, 0.85, 0.86, 0.2},
                                new double[] {1, 1, 1, 1, 1, 1, 1, 0}))
                .isEqualTo(Difficulty.EASY);
        assertThat(
                        paper.difficulty(
                                NextStateKind.TEXT, new double[] {0.1, 0.3}, new double[] {0, 0}))
                .isEqualTo(Difficulty.HARD);
    }

    @Test
    void shouldUseEachKindsThresholdAndTheMinimumNumberOfPasses() {
        final SubsamplePolicy paper = SubsamplePolicy.paperDefaults();
        final double[] oneAt087 = {0.87, 0.5};
        final double[] rewards = {1, 0};
        assertThat(paper.difficulty(NextStateKind.USER_MESSAGE, oneAt087, rewards))
                .as("tau2's 0.85")
                .isEqualTo(Difficulty.EASY);
        assertThat(paper.difficulty(NextStateKind.TEXT, oneAt087, rewards))
                .as("ALFWorld's 0.9")
                .isEqualTo(Difficulty.INFORMATIVE);

        final SubsamplePolicy twoPasses =
                new SubsamplePolicy(0.1, true, 0, SubsamplePolicy.PAPER_EASY_THRESHOLDS, 2);
        assertThat(twoPasses.difficulty(NextStateKind.USER_MESSAGE, oneAt087, rewards))
                .isEqualTo(Difficulty.INFORMATIVE);
        assertThat(
                        twoPasses.difficulty(
                                NextStateKind.USER_MESSAGE,
                                new double[] {0.87, 0.9},
                                new double[] {1, 1}))
                .isEqualTo(Difficulty.EASY);
    }

    @Test
    void shouldParseThresholdsPerKindOverThePapers() {
        assertThat(SubsamplePolicy.thresholds("TEXT=0.95"))
                .containsEntry(NextStateKind.TEXT, 0.95)
                .containsEntry(NextStateKind.USER_MESSAGE, 0.85)
                .containsEntry(NextStateKind.TOOL_RESULT, 0.85);
        assertThatThrownBy(() -> SubsamplePolicy.thresholds("TEXT:0.9"))
                .hasMessageContaining("KIND=number");
    }
}
