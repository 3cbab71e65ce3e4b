package dev.rwml.pipeline.watch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.pipeline.watch.LagMeter.Stage;
import dev.rwml.runtime.StageName;
import java.util.List;
import org.junit.jupiter.api.Test;

class LagMeterTest {

    @Test
    void shouldMeasureTheStagesInPipelineOrderWithTheirDefaultGroupsAndInputs() {
        assertThat(Stage.defaults("exp1"))
                .containsExactly(
                        new Stage(
                                StageName.FILTER, "rwml-exp1-filter", List.of("rwml.transitions")),
                        new Stage(
                                StageName.PREDICTION,
                                "rwml-exp1-prediction",
                                List.of("rwml.transitions", "rwml.exp1.curriculum")),
                        new Stage(
                                StageName.REWARD,
                                "rwml-exp1-reward",
                                List.of("rwml.exp1.predictions", "rwml.transitions")),
                        new Stage(
                                StageName.TRAINER,
                                "rwml-exp1-trainer",
                                List.of("rwml.exp1.rewards")));
    }

    @Test
    void shouldKeepTheInputsOfAStageStartedUnderItsOwnGroupId() {
        final Stage reward = Stage.defaults("exp1").get(2);

        assertThat(reward.withGroupId("mine"))
                .isEqualTo(new Stage(StageName.REWARD, "mine", reward.inputTopics()));
    }
}
