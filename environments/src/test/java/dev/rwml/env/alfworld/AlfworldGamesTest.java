package dev.rwml.env.alfworld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.env.Environment;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AlfworldGamesTest {

    private static List<String> expertEpisode(final AlfworldEnvironment env) {
        final List<String> trace = new ArrayList<>();
        trace.add(env.observation());
        trace.add(String.join("|", env.admissibleActions()));
        while (!env.done()) {
            final String action = env.expertAction().orElseThrow();
            final Environment.Step step = env.step(action);
            trace.add(action + " -> " + step.observation() + " r=" + step.reward());
        }
        return trace;
    }

    @Test
    void shouldGiveIdenticalEpisodesForTheSameSeed() {
        for (final Split split : Split.values()) {
            for (long seed = 0; seed < 20; seed++) {
                assertThat(expertEpisode(AlfworldGames.create(split, seed, Grammar.CURRENT)))
                        .isEqualTo(
                                expertEpisode(AlfworldGames.create(split, seed, Grammar.CURRENT)));
            }
        }
        assertThat(AlfworldGames.create(Split.TRAIN, 1, Grammar.CURRENT).observation())
                .isNotEqualTo(AlfworldGames.create(Split.TRAIN, 2, Grammar.CURRENT).observation());
    }

    @Test
    void shouldNeverUseAnUnseenLayoutOutsideValidUnseen() {
        final Set<Integer> seen = new HashSet<>();
        final Set<Integer> unseen = new HashSet<>();
        final Set<String> trainGames = new HashSet<>();
        final Set<String> validSeenGames = new HashSet<>();
        for (long seed = 0; seed < 1_500; seed++) {
            final AlfworldEnvironment train =
                    AlfworldGames.create(Split.TRAIN, seed, Grammar.CURRENT);
            final AlfworldEnvironment valid =
                    AlfworldGames.create(Split.VALID_SEEN, seed, Grammar.CURRENT);
            seen.add(train.layoutId());
            seen.add(valid.layoutId());
            trainGames.add(train.task() + train.stateDigest());
            validSeenGames.add(valid.task() + valid.stateDigest());
            assertThat(Long.parseLong(train.metadata().get("gameVariant")) % 2).isZero();
            assertThat(Long.parseLong(valid.metadata().get("gameVariant")) % 2).isNotZero();
            final AlfworldEnvironment held =
                    AlfworldGames.create(Split.VALID_UNSEEN, seed, Grammar.CURRENT);
            unseen.add(held.layoutId());
            assertThat(AlfworldGames.isUnseenLayout(held.layoutId())).isTrue();
        }
        assertThat(seen).doesNotContainAnyElementsOf(unseen);
        assertThat(unseen).hasSizeGreaterThan(10);
        assertThat(seen).hasSizeGreaterThan(150);
        assertThat(validSeenGames.stream().filter(trainGames::contains).count())
                .as("valid_seen games that are also training games")
                .isLessThan(30);
    }

    @Test
    void shouldGenerateEveryTaskTypeInEverySplit() {
        for (final Split split : Split.values()) {
            final Map<TaskType, Integer> counts = new EnumMap<>(TaskType.class);
            final Set<String> phrasings = new HashSet<>();
            for (long seed = 0; seed < 300; seed++) {
                final AlfworldEnvironment env = AlfworldGames.create(split, seed, Grammar.CURRENT);
                counts.merge(env.taskType(), 1, Integer::sum);
                phrasings.add(env.taskType() + ":" + env.task().split(" ")[0]);
                assertThat(env.metadata())
                        .containsEntry("taskType", env.taskType().id())
                        .containsEntry("split", split.id())
                        .containsEntry("grammar", "current");
            }
            assertThat(counts).as("task types in %s", split).hasSize(TaskType.values().length);
            assertThat(phrasings).as("phrasings in %s", split).hasSizeGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void shouldProduceEachGrammarsTextsForTheSameGame() {
        final AlfworldEnvironment current = AlfworldGames.create(Split.TRAIN, 7, Grammar.CURRENT);
        final AlfworldEnvironment older = AlfworldGames.create(Split.TRAIN, 7, Grammar.OLDER);
        assertThat(older.observation()).isEqualTo(current.observation());
        final String target =
                current.admissibleActions().stream()
                        .filter(a -> a.startsWith("go to "))
                        .findFirst()
                        .orElseThrow();
        assertThat(current.step(target).observation())
                .startsWith("You arrive at " + target.substring("go to ".length()) + ". ");
        assertThat(older.step(target).observation()).matches("You arrive at loc \\d+\\. .*");
        final List<String> olderPlaces = new ArrayList<>();
        final List<String> currentPlaces = new ArrayList<>();
        playUntilHolding(current, currentPlaces);
        playUntilHolding(older, olderPlaces);
        assertThat(currentPlaces).allMatch(a -> a.matches("move .+ to .+"));
        assertThat(olderPlaces).allMatch(a -> a.matches("put .+ in/on .+"));
    }

    private static void playUntilHolding(final AlfworldEnvironment env, final List<String> places) {
        while (!env.done()) {
            env.admissibleActions().stream()
                    .filter(a -> a.startsWith("move ") || a.startsWith("put "))
                    .forEach(places::add);
            if (!places.isEmpty()) {
                return;
            }
            env.step(env.expertAction().orElseThrow());
        }
    }

    @Test
    void shouldNameSplitsAsTheBenchmarkAndRejectUnknownOnes() {
        assertThat(Split.of("valid_unseen")).isEqualTo(Split.VALID_UNSEEN);
        assertThat(Split.of("TRAIN")).isEqualTo(Split.TRAIN);
        assertThatThrownBy(() -> Split.of("test"))
                .hasMessageContaining("train, valid_seen, valid_unseen");
    }
}
