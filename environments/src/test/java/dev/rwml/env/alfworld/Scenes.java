package dev.rwml.env.alfworld;

import java.util.ArrayList;
import java.util.List;

/** Hand-built games for exact feedback and goal tests. */
final class Scenes {
    private Scenes() {}

    /** Receptacles in the opening-sentence order; loc numbers are deliberately not positional. */
    static final Layout KITCHEN =
            new Layout(
                    9_999,
                    RoomType.KITCHEN,
                    List.of(
                            new Receptacle("cabinet", 1, 3),
                            new Receptacle("countertop", 1, 1),
                            new Receptacle("fridge", 1, 2),
                            new Receptacle("garbagecan", 2, 8),
                            new Receptacle("garbagecan", 1, 7),
                            new Receptacle("microwave", 1, 4),
                            new Receptacle("sidetable", 1, 6),
                            new Receptacle("sinkbasin", 1, 5)));

    static final String[] DEFAULT_PLACEMENTS = {
        "apple 1@countertop 1",
        "mug 1@cabinet 1",
        "desklamp 1@sidetable 1",
        "book 1@sidetable 1",
        "egg 1@fridge 1"
    };

    static AlfworldEnvironment scene(final Goal goal, final Grammar grammar, final String... at) {
        final List<Game.Placement> placements = new ArrayList<>();
        for (final String p : at.length == 0 ? DEFAULT_PLACEMENTS : at) {
            final String[] parts = p.split("@");
            placements.add(new Game.Placement(parts[0], parts[1]));
        }
        return new AlfworldEnvironment(
                new Game(KITCHEN, 0, goal, placements), Split.TRAIN, grammar, 50);
    }

    static AlfworldEnvironment scene(final Grammar grammar) {
        return scene(appleInGarbage(), grammar);
    }

    static Goal appleInGarbage() {
        return new Goal(TaskType.PICK_AND_PLACE_SIMPLE, "apple", "garbagecan", null, 0);
    }
}
