package dev.rwml.env.alfworld;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The two traits of the real game's scenes that recorded transcripts show: receptacles holding 8-20
 * objects, and receptacles standing side by side that {@code look} names together (and the older
 * grammar gives one {@code loc N}).
 */
class AlfworldSceneRealismTest {

    private static final int GAMES = 400;

    @Test
    void shouldCrowdOneReceptacleInAboutHalfTheGamesWithEightToTwentyObjects() {
        int crowdedGames = 0;
        int most = 0;
        for (long seed = 0; seed < GAMES; seed++) {
            final AlfworldEnvironment env =
                    AlfworldGames.create(Split.TRAIN, seed, Grammar.CURRENT);
            final Map<String, Integer> counts = new HashMap<>();
            for (final Game.Placement p : env.game().placements()) {
                counts.merge(p.receptacle(), 1, Integer::sum);
            }
            final int fullest =
                    counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            most = Math.max(most, fullest);
            if (fullest >= Game.CROWD_MIN) {
                crowdedGames++;
            }
        }
        assertThat(most).isBetween(Game.CROWD_MIN, Game.CROWD_MAX + 3);
        assertThat(crowdedGames).isBetween(GAMES / 3, GAMES * 2 / 3);
    }

    @Test
    void shouldListEveryObjectOfACrowdedReceptacleOnArrivalAndKeepEachTaskSolvable() {
        int solved = 0;
        int crowdedArrivals = 0;
        for (long seed = 0; seed < 120; seed++) {
            final AlfworldEnvironment env =
                    AlfworldGames.create(Split.TRAIN, seed, Grammar.CURRENT);
            while (!env.done()) {
                final String action = env.expertAction().orElseThrow();
                final String feedback = env.step(action).observation();
                if (action.startsWith("go to ") && commaCount(feedback) >= Game.CROWD_MIN - 1) {
                    crowdedArrivals++;
                }
            }
            if (env.steps() < AlfworldEnvironment.DEFAULT_STEP_CAP) {
                solved++;
            }
        }
        assertThat(crowdedArrivals).isPositive();
        assertThat(solved).isEqualTo(120);
    }

    @Test
    void shouldFaceBothOfTwoReceptaclesStandingSideBySide() {
        int pairedLooks = 0;
        for (long seed = 0; seed < GAMES && pairedLooks < 5; seed++) {
            final AlfworldEnvironment env = AlfworldGames.create(Split.TRAIN, seed, Grammar.OLDER);
            final Map<String, String> neighbours = env.game().layout().neighbours();
            if (neighbours.isEmpty()) {
                continue;
            }
            final String first = neighbours.keySet().stream().sorted().findFirst().orElseThrow();
            final String second = neighbours.get(first);
            assertThat(neighbours.get(second)).isEqualTo(first);
            final String arrivedFirst = env.step("go to " + first).observation();
            assertThat(env.step("look").observation())
                    .isEqualTo(
                            "You are facing the "
                                    + first
                                    + ", and "
                                    + second
                                    + ". Next to it, you see nothing.");
            final String arrivedSecond = env.step("go to " + second).observation();
            assertThat(loc(arrivedSecond)).isEqualTo(loc(arrivedFirst));
            assertThat(env.step("look").observation())
                    .startsWith("You are facing the " + second + ", and " + first + ".");
            pairedLooks++;
        }
        assertThat(pairedLooks).isEqualTo(5);
    }

    @Test
    void shouldGiveEveryOtherReceptacleItsOwnLoc() {
        for (int id = 0; id < Layouts.COUNT; id++) {
            final Layout layout = Layouts.get(id);
            final Map<Integer, List<String>> byLoc = new HashMap<>();
            for (final Receptacle r : layout.receptacles()) {
                byLoc.computeIfAbsent(r.loc(), l -> new java.util.ArrayList<>()).add(r.name());
            }
            for (final List<String> sharing : byLoc.values()) {
                if (sharing.size() > 1) {
                    assertThat(sharing).hasSize(2);
                    assertThat(layout.neighbours().get(sharing.get(0))).isEqualTo(sharing.get(1));
                }
            }
            layout.neighbours()
                    .keySet()
                    .forEach(
                            name ->
                                    assertThat(byLoc.values())
                                            .anyMatch(
                                                    names ->
                                                            names.contains(name)
                                                                    && names.size() == 2));
        }
    }

    private static int commaCount(final String text) {
        return (int) text.chars().filter(c -> c == ',').count();
    }

    private static String loc(final String arrival) {
        final Matcher m = Pattern.compile("You arrive at (loc \\d+)\\.").matcher(arrival);
        assertThat(m.find()).as(arrival).isTrue();
        return m.group(1);
    }
}
