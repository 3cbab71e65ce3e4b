package dev.rwml.env.alfworld;

import dev.rwml.env.EnvironmentSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Creates ALFWorld games from a split and a seed.
 *
 * <p>How the splits are formed: a game is the pair (layout id, variant); everything in it (the task
 * type when not requested, the goal, its phrasing and where each object starts) is drawn from a
 * random stream seeded by that pair. The {@value Layouts#COUNT} layouts (60 per room kind: kitchen,
 * living room, bedroom, bathroom) are split once by a hash of the layout id: about one in eight is
 * <em>unseen</em>. {@code train} games use seen layouts and even variants, {@code valid_seen} games
 * use the same seen layouts with odd variants (new tasks and placements in known rooms, never a
 * training game), and {@code valid_unseen} games use only unseen layouts, so no room of {@code
 * valid_unseen} ever occurs in {@code train} or {@code valid_seen}. The seed picks the layout and
 * the variant, so the same (split, seed, grammar) always gives the same game.
 */
public final class AlfworldGames {

    private static final Map<TaskType, List<Integer>> SEEN = new EnumMap<>(TaskType.class);
    private static final Map<TaskType, List<Integer>> UNSEEN = new EnumMap<>(TaskType.class);
    private static final List<Integer> ALL_SEEN;
    private static final List<Integer> ALL_UNSEEN;
    private static final List<RoomType> ROOMS = Arrays.asList(RoomType.values());

    static {
        ALL_SEEN = Layouts.ids(false, ROOMS);
        ALL_UNSEEN = Layouts.ids(true, ROOMS);
        for (final TaskType type : TaskType.values()) {
            SEEN.put(type, supporting(ALL_SEEN, type));
            UNSEEN.put(type, supporting(ALL_UNSEEN, type));
        }
    }

    private AlfworldGames() {}

    /** A game of any task type with the default step cap. */
    public static AlfworldEnvironment create(
            final Split split, final long seed, final Grammar grammar) {
        return create(split, seed, grammar, Optional.empty(), AlfworldEnvironment.DEFAULT_STEP_CAP);
    }

    /** A game of the given task type with the default step cap. */
    public static AlfworldEnvironment create(
            final Split split, final long seed, final Grammar grammar, final TaskType type) {
        return create(
                split, seed, grammar, Optional.of(type), AlfworldEnvironment.DEFAULT_STEP_CAP);
    }

    /** A game, of the given task type if present, ending after at most {@code stepCap} steps. */
    public static AlfworldEnvironment create(
            final Split split,
            final long seed,
            final Grammar grammar,
            final Optional<TaskType> type,
            final int stepCap) {
        final boolean unseen = split == Split.VALID_UNSEEN;
        final List<Integer> layouts =
                type.map(t -> (unseen ? UNSEEN : SEEN).get(t))
                        .orElse(unseen ? ALL_UNSEEN : ALL_SEEN);
        final int layoutId = layouts.get(Math.floorMod(Mix.mix(seed, 1), layouts.size()));
        final long drawn = Mix.mix(seed, 2);
        final long variant =
                switch (split) {
                    case TRAIN -> drawn & ~1L;
                    case VALID_SEEN -> drawn | 1L;
                    case VALID_UNSEEN -> drawn;
                };
        final Game game = Game.generate(Layouts.get(layoutId), variant, type);
        return new AlfworldEnvironment(game, split, grammar, stepCap);
    }

    /** Episodes of this split and grammar for the episode runner, with the default step cap. */
    public static EnvironmentSource source(final Split split, final Grammar grammar) {
        return new EnvironmentSource(
                AlfworldEnvironment.NAME,
                AlfworldEnvironment.VERSION,
                split.id(),
                seed -> create(split, seed, grammar));
    }

    /** True if the layout with this id is held out for {@code valid_unseen}. */
    public static boolean isUnseenLayout(final int layoutId) {
        return Layouts.unseen(layoutId);
    }

    private static List<Integer> supporting(final List<Integer> ids, final TaskType type) {
        final List<Integer> out = new ArrayList<>();
        for (final int id : ids) {
            if (Game.supports(Layouts.get(id), type)) {
                out.add(id);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("No layout supports " + type.id() + "; check Catalog");
        }
        return List.copyOf(out);
    }
}
