package dev.rwml.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.schemas.topics.RunTopics;
import dev.rwml.schemas.topics.TopicCatalog;
import org.junit.jupiter.api.Test;

class StageNameTest {

    private static final RunTopics RUN = TopicCatalog.defaults().run("exp1");

    @Test
    void shouldNameEachStagesInputTopicsMainInputFirst() {
        assertThat(StageName.FILTER.inputTopics(RUN)).containsExactly("rwml.transitions");
        assertThat(StageName.PREDICTION.inputTopics(RUN))
                .containsExactly("rwml.transitions", "rwml.exp1.curriculum");
        assertThat(StageName.REWARD.inputTopics(RUN))
                .containsExactly("rwml.exp1.predictions", "rwml.transitions");
        assertThat(StageName.TRAINER.inputTopics(RUN)).containsExactly("rwml.exp1.rewards");
    }

    @Test
    void shouldLetOnlyThePredictionStageChooseItsInputAndOnlyTheFilterBeLeftOut() {
        assertThat(StageName.values())
                .filteredOn(StageName::readsOneInput)
                .containsExactly(StageName.PREDICTION);
        assertThat(StageName.values())
                .filteredOn(StageName::optional)
                .containsExactly(StageName.FILTER);
    }
}
