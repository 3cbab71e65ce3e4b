package dev.rwml.env.alfworld;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One ALFWorld game: a layout, a goal and where every object starts.
 *
 * @param variant the number that, with the layout id, determines the goal and the placements
 * @param placements object name and receptacle name, in the order they are listed in
 */
record Game(Layout layout, long variant, Goal goal, List<Placement> placements) {

    /** The fewest objects a crowded receptacle holds. */
    static final int CROWD_MIN = 8;

    /** The most objects a crowded receptacle holds. */
    static final int CROWD_MAX = 20;

    /** A receptacle is crowded only with at least this many object types that fit in it. */
    private static final int MIN_FILLER_TYPES = 4;

    /** Crowding stops adding objects of a type once the room has this many of it. */
    private static final int MAX_OF_A_TYPE = 4;

    /** The receptacle types that the real scenes crowd: the large surfaces. */
    private static final Set<String> CROWDABLE =
            Set.of(
                    "countertop",
                    "diningtable",
                    "desk",
                    "dresser",
                    "coffeetable",
                    "sidetable",
                    "shelf",
                    "tvstand",
                    "cart",
                    "bed");

    /** An object and the receptacle it starts in. */
    record Placement(String object, String receptacle) {}

    /**
     * Generates the game {@code (layout, variant)}; the task type is drawn unless requested.
     * Objects of the task's type never start in a receptacle of the goal type, so every task needs
     * its object found, carried and placed.
     */
    static Game generate(final Layout layout, final long variant, final Optional<TaskType> wanted) {
        final SplittableRandom rng = new SplittableRandom(Mix.mix(layout.id(), variant));
        final Catalog.RoomSpec room = Catalog.room(layout.room());
        final List<Placement> placed = new ArrayList<>();
        final Map<String, Integer> numbers = new HashMap<>();

        // Every room with lamps gets at least one (a random kind), sometimes both kinds.
        final List<String> lampTypes = new ArrayList<>();
        final int sure = room.lamps().isEmpty() ? -1 : rng.nextInt(room.lamps().size());
        for (int i = 0; i < room.lamps().size(); i++) {
            if (i == sure || rng.nextBoolean()) {
                lampTypes.add(room.lamps().get(i).type());
            }
        }
        final List<TaskType> types = new ArrayList<>();
        for (final TaskType type : TaskType.values()) {
            if (!candidates(layout, room, type, lampTypes).isEmpty()) {
                types.add(type);
            }
        }
        final TaskType type = wanted.orElseGet(() -> types.get(rng.nextInt(types.size())));
        final List<String[]> choices = candidates(layout, room, type, lampTypes);
        if (choices.isEmpty()) {
            throw new IllegalArgumentException(
                    "Layout "
                            + layout.id()
                            + " ("
                            + layout.room().id()
                            + ") cannot host a "
                            + type.id()
                            + " task; pick a layout of another room kind");
        }
        final String[] choice = choices.get(rng.nextInt(choices.size()));
        final String objType = choice[0];
        final String recepType = choice[1];
        final String lampType =
                type == TaskType.LOOK_AT_OBJ_IN_LIGHT
                        ? lampTypes.get(rng.nextInt(lampTypes.size()))
                        : null;
        final Goal goal = new Goal(type, objType, recepType, lampType, rng.nextInt(2));

        for (final Catalog.ObjectSpec lamp : room.lamps()) {
            if (lampTypes.contains(lamp.type())) {
                place(layout, lamp, null, 1, rng, numbers, placed);
            }
        }
        for (final Catalog.ObjectSpec spec : room.objects()) {
            final boolean task = spec.type().equals(objType);
            final int count;
            if (task) {
                count = (type == TaskType.PICK_TWO_OBJ_AND_PLACE ? 2 : 1) + rng.nextInt(2);
            } else {
                count = rng.nextInt(3) == 0 ? 0 : 1 + rng.nextInt(2);
            }
            place(layout, spec, task ? recepType : null, count, rng, numbers, placed);
        }
        crowd(layout, room, objType, variant, numbers, placed);
        // Shuffle so the task object is not always listed in the same position.
        for (int i = placed.size() - 1; i > 0; i--) {
            final int j = rng.nextInt(i + 1);
            final Placement swap = placed.get(i);
            placed.set(i, placed.get(j));
            placed.set(j, swap);
        }
        return new Game(layout, variant, goal, List.copyOf(placed));
    }

    /** True if a task of this type can be generated on this layout. */
    static boolean supports(final Layout layout, final TaskType type) {
        final Catalog.RoomSpec room = Catalog.room(layout.room());
        final List<String> lamps = room.lamps().stream().map(Catalog.ObjectSpec::type).toList();
        return !candidates(layout, room, type, lamps).isEmpty();
    }

    /** (object type, goal receptacle type or null) pairs a task of this type can use here. */
    private static List<String[]> candidates(
            final Layout layout,
            final Catalog.RoomSpec room,
            final TaskType type,
            final List<String> lampTypes) {
        final List<String[]> out = new ArrayList<>();
        for (final Catalog.ObjectSpec spec : room.objects()) {
            if (!spec.fits(type)) {
                continue;
            }
            final List<String> present = spec.places().stream().filter(layout::has).toList();
            if (type == TaskType.LOOK_AT_OBJ_IN_LIGHT) {
                if (!present.isEmpty() && !lampTypes.isEmpty()) {
                    out.add(new String[] {spec.type(), null});
                }
                continue;
            }
            if (type.appliance() != null && !layout.has(type.appliance())) {
                continue;
            }
            for (final String goalType : present) {
                if (goalType.equals(type.appliance()) || present.size() < 2) {
                    continue;
                }
                out.add(new String[] {spec.type(), goalType});
            }
        }
        return out;
    }

    /**
     * In half the games, fills one receptacle up to 8-20 objects, as the real scenes' countertops,
     * tables and shelves often hold, with objects of other types than the task's (so the task's
     * placement rule holds). Drawn from the game's own second random stream, so the goal and the
     * placements drawn before stay as they were.
     */
    private static void crowd(
            final Layout layout,
            final Catalog.RoomSpec room,
            final String objType,
            final long variant,
            final Map<String, Integer> numbers,
            final List<Placement> placed) {
        final SplittableRandom rng =
                new SplittableRandom(Mix.mix(0xC20_4DEDL, layout.id(), variant));
        if (!rng.nextBoolean()) {
            return;
        }
        final List<Receptacle> spots = new ArrayList<>();
        for (final Receptacle r : layout.receptacles()) {
            if (CROWDABLE.contains(r.type())
                    && fillers(room, objType, r).size() >= MIN_FILLER_TYPES) {
                spots.add(r);
            }
        }
        if (spots.isEmpty()) {
            return;
        }
        final Receptacle spot = spots.get(rng.nextInt(spots.size()));
        final List<Catalog.ObjectSpec> fillers = new ArrayList<>(fillers(room, objType, spot));
        final int target = CROWD_MIN + rng.nextInt(CROWD_MAX - CROWD_MIN + 1);
        long held = placed.stream().filter(p -> p.receptacle().equals(spot.name())).count();
        for (; held < target && !fillers.isEmpty(); held++) {
            final int pick = rng.nextInt(fillers.size());
            final String type = fillers.get(pick).type();
            final int number = numbers.merge(type, 1, Integer::sum);
            placed.add(new Placement(type + " " + number, spot.name()));
            if (number >= MAX_OF_A_TYPE) {
                fillers.remove(pick);
            }
        }
    }

    /** The object types, other than the task's, that may stand in {@code receptacle}. */
    private static List<Catalog.ObjectSpec> fillers(
            final Catalog.RoomSpec room, final String objType, final Receptacle receptacle) {
        return room.objects().stream()
                .filter(spec -> !spec.type().equals(objType))
                .filter(spec -> spec.places().contains(receptacle.type()))
                .toList();
    }

    private static void place(
            final Layout layout,
            final Catalog.ObjectSpec spec,
            final String avoidType,
            final int count,
            final SplittableRandom rng,
            final Map<String, Integer> numbers,
            final List<Placement> placed) {
        final List<Receptacle> spots =
                layout.receptacles().stream()
                        .filter(r -> spec.places().contains(r.type()))
                        .filter(r -> !r.type().equals(avoidType))
                        .toList();
        if (spots.isEmpty()) {
            return;
        }
        for (int i = 0; i < count; i++) {
            final int number = numbers.merge(spec.type(), 1, Integer::sum);
            final Receptacle spot = spots.get(rng.nextInt(spots.size()));
            placed.add(new Placement(spec.type() + " " + number, spot.name()));
        }
    }
}
