package dev.rwml.evaluation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.Transition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which held-out transitions a generated set draws. */
class HeldOutSetTest {

    private static Map<String, List<Integer>> stepsByEpisode(final HeldOutSet set) {
        final Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (final Transition t : set.transitions()) {
            out.computeIfAbsent(t.getEpisodeId(), e -> new ArrayList<>()).add(t.getStep());
        }
        return out;
    }

    @Test
    void shouldSpreadTheSetOverManyEpisodesAtMostPerEpisodeEach() {
        final HeldOutSet set = HeldOutSet.generate("alfworld/valid_seen", 400, 7, 0.3);
        assertThat(set.transitions()).hasSize(400);
        final Map<String, List<Integer>> episodes = stepsByEpisode(set);
        assertThat(episodes).hasSizeGreaterThanOrEqualTo(400 / HeldOutSet.DEFAULT_PER_EPISODE);
        assertThat(episodes.values())
                .allSatisfy(
                        steps ->
                                assertThat(steps)
                                        .hasSizeLessThanOrEqualTo(HeldOutSet.DEFAULT_PER_EPISODE)
                                        .isSorted()
                                        .doesNotHaveDuplicates());
        assertThat(set.transitions().stream().map(Transition::getTransitionId).distinct())
                .hasSize(400);
    }

    @Test
    void shouldDrawStepsFromAcrossAnEpisodeNotOnlyItsStart() {
        final HeldOutSet set = HeldOutSet.generate("alfworld/valid_unseen", 60, 7, 0.3, 2);
        final Map<String, List<Integer>> episodes = stepsByEpisode(set);
        assertThat(episodes).hasSizeGreaterThanOrEqualTo(30);
        assertThat(episodes.values())
                .as("some episode's two steps are not its first two")
                .anySatisfy(steps -> assertThat(steps).isNotEqualTo(List.of(0, 1)));
        assertThat(episodes.values().stream().map(steps -> steps.get(0)).distinct().count())
                .as("the first step drawn differs from one episode to the next")
                .isGreaterThan(1);
    }

    @Test
    void shouldDrawTheSameSetForTheSameSeed() {
        final HeldOutSet a = HeldOutSet.generate("tau2/test", 40, 3, 0.3, 4);
        assertThat(HeldOutSet.generate("tau2/test", 40, 3, 0.3, 4)).isEqualTo(a);
        assertThat(HeldOutSet.generate("tau2/test", 40, 4, 0.3, 4)).isNotEqualTo(a);
        assertThat(a.transitions().stream().map(t -> t.getEnv().getName()).distinct())
                .as("tau2/test alternates retail and airline")
                .hasSize(2);
    }

    @Test
    void shouldRefuseFewerThanOneTransitionPerEpisode() {
        assertThatThrownBy(() -> HeldOutSet.generate("alfworld/valid_seen", 10, 7, 0.3, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--per-episode");
    }
}
