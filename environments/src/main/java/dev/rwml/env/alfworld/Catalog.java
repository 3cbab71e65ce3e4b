package dev.rwml.env.alfworld;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each room type holds: receptacle types with their count ranges and object types with the
 * receptacle types they plausibly rest in (most likely first) and what can be done to them.
 *
 * <p>The place lists double as the expert's search order and bound how far it must search: the
 * largest list costs at most 22 steps (each closed receptacle costs a go and an open), which keeps
 * every generated task solvable well inside the 50-step cap.
 */
final class Catalog {

    /** Receptacle types that start closed and must be opened to see or use their contents. */
    static final Set<String> OPENABLE =
            Set.of("fridge", "cabinet", "microwave", "drawer", "safe", "box");

    /** A receptacle type and how many of it a room of that kind has. */
    record ReceptacleSpec(String type, int min, int max) {}

    /**
     * An object type, the receptacle types it is placed in, and its affordances: C cleanable, H
     * heatable, K coolable, L worth looking at under a lamp.
     */
    record ObjectSpec(String type, String flags, List<String> places) {
        boolean can(final char flag) {
            return flags.indexOf(flag) >= 0;
        }

        /** True if the object can be the subject of a task of this type. */
        boolean fits(final TaskType task) {
            return switch (task) {
                case PICK_AND_PLACE_SIMPLE, PICK_TWO_OBJ_AND_PLACE -> true;
                case LOOK_AT_OBJ_IN_LIGHT -> can('L');
                case PICK_CLEAN_THEN_PLACE_IN_RECEP -> can('C');
                case PICK_HEAT_THEN_PLACE_IN_RECEP -> can('H');
                case PICK_COOL_THEN_PLACE_IN_RECEP -> can('K');
            };
        }
    }

    /** Everything one kind of room may contain. */
    record RoomSpec(
            RoomType room,
            List<ReceptacleSpec> receptacles,
            List<ObjectSpec> objects,
            List<ObjectSpec> lamps) {}

    private static final Map<RoomType, RoomSpec> ROOMS = new EnumMap<>(RoomType.class);

    static {
        ROOMS.put(
                RoomType.KITCHEN,
                new RoomSpec(
                        RoomType.KITCHEN,
                        List.of(
                                r("cabinet", 3, 6),
                                r("coffeemachine", 1, 1),
                                r("countertop", 1, 3),
                                r("diningtable", 0, 1),
                                r("drawer", 1, 4),
                                r("fridge", 1, 1),
                                r("garbagecan", 1, 1),
                                r("microwave", 1, 1),
                                r("shelf", 0, 2),
                                r("sinkbasin", 1, 1),
                                r("stoveburner", 2, 4),
                                r("toaster", 1, 1)),
                        List.of(
                                o(
                                        "apple",
                                        "CHK",
                                        "countertop",
                                        "diningtable",
                                        "fridge",
                                        "garbagecan",
                                        "microwave",
                                        "sinkbasin"),
                                o("bread", "HK", "countertop", "diningtable", "fridge", "cabinet"),
                                o(
                                        "butterknife",
                                        "C",
                                        "countertop",
                                        "diningtable",
                                        "drawer",
                                        "sinkbasin"),
                                o(
                                        "bowl",
                                        "CK",
                                        "cabinet",
                                        "countertop",
                                        "diningtable",
                                        "fridge",
                                        "shelf",
                                        "microwave"),
                                o(
                                        "cup",
                                        "CHK",
                                        "countertop",
                                        "diningtable",
                                        "cabinet",
                                        "fridge",
                                        "microwave",
                                        "sinkbasin",
                                        "shelf"),
                                o(
                                        "dishsponge",
                                        "C",
                                        "sinkbasin",
                                        "countertop",
                                        "drawer",
                                        "cabinet"),
                                o(
                                        "egg",
                                        "CHK",
                                        "fridge",
                                        "countertop",
                                        "diningtable",
                                        "sinkbasin",
                                        "garbagecan",
                                        "microwave"),
                                o("fork", "C", "drawer", "countertop", "diningtable", "sinkbasin"),
                                o("kettle", "C", "stoveburner", "countertop", "cabinet"),
                                o("knife", "C", "countertop", "diningtable", "drawer"),
                                o("ladle", "C", "countertop", "diningtable", "drawer", "sinkbasin"),
                                o("lettuce", "CK", "fridge", "countertop", "diningtable"),
                                o(
                                        "mug",
                                        "CHK",
                                        "coffeemachine",
                                        "countertop",
                                        "cabinet",
                                        "diningtable",
                                        "shelf",
                                        "sinkbasin",
                                        "microwave"),
                                o(
                                        "pan",
                                        "CK",
                                        "stoveburner",
                                        "countertop",
                                        "cabinet",
                                        "diningtable"),
                                o(
                                        "peppershaker",
                                        "",
                                        "countertop",
                                        "diningtable",
                                        "cabinet",
                                        "shelf",
                                        "drawer"),
                                o(
                                        "plate",
                                        "CHK",
                                        "cabinet",
                                        "countertop",
                                        "diningtable",
                                        "fridge",
                                        "shelf"),
                                o(
                                        "pot",
                                        "CK",
                                        "stoveburner",
                                        "countertop",
                                        "cabinet",
                                        "diningtable"),
                                o(
                                        "potato",
                                        "CHK",
                                        "countertop",
                                        "diningtable",
                                        "fridge",
                                        "garbagecan",
                                        "microwave",
                                        "sinkbasin"),
                                o(
                                        "saltshaker",
                                        "",
                                        "countertop",
                                        "diningtable",
                                        "cabinet",
                                        "shelf",
                                        "drawer"),
                                o(
                                        "spatula",
                                        "C",
                                        "countertop",
                                        "diningtable",
                                        "drawer",
                                        "sinkbasin"),
                                o("spoon", "C", "drawer", "countertop", "diningtable", "sinkbasin"),
                                o(
                                        "tomato",
                                        "CHK",
                                        "countertop",
                                        "diningtable",
                                        "fridge",
                                        "sinkbasin",
                                        "garbagecan"),
                                o(
                                        "winebottle",
                                        "K",
                                        "countertop",
                                        "diningtable",
                                        "cabinet",
                                        "fridge",
                                        "shelf")),
                        List.of()));
        ROOMS.put(
                RoomType.LIVINGROOM,
                new RoomSpec(
                        RoomType.LIVINGROOM,
                        List.of(
                                r("armchair", 0, 2),
                                r("box", 0, 1),
                                r("cabinet", 0, 3),
                                r("coffeetable", 1, 2),
                                r("diningtable", 0, 1),
                                r("drawer", 1, 3),
                                r("dresser", 0, 1),
                                r("garbagecan", 1, 1),
                                r("ottoman", 0, 1),
                                r("shelf", 0, 3),
                                r("sidetable", 1, 2),
                                r("sofa", 1, 1),
                                r("tvstand", 0, 1)),
                        List.of(
                                o(
                                        "book",
                                        "L",
                                        "coffeetable",
                                        "sidetable",
                                        "sofa",
                                        "shelf",
                                        "armchair",
                                        "diningtable",
                                        "drawer"),
                                o(
                                        "cellphone",
                                        "L",
                                        "sofa",
                                        "coffeetable",
                                        "sidetable",
                                        "armchair",
                                        "drawer",
                                        "dresser"),
                                o(
                                        "creditcard",
                                        "L",
                                        "coffeetable",
                                        "sidetable",
                                        "sofa",
                                        "armchair",
                                        "dresser",
                                        "drawer",
                                        "shelf"),
                                o(
                                        "keychain",
                                        "L",
                                        "coffeetable",
                                        "sidetable",
                                        "shelf",
                                        "dresser",
                                        "drawer",
                                        "box"),
                                o("laptop", "L", "sofa", "coffeetable", "armchair", "diningtable"),
                                o(
                                        "newspaper",
                                        "L",
                                        "coffeetable",
                                        "sofa",
                                        "sidetable",
                                        "armchair",
                                        "ottoman",
                                        "shelf"),
                                o("pillow", "L", "sofa", "armchair"),
                                o(
                                        "remotecontrol",
                                        "L",
                                        "coffeetable",
                                        "sofa",
                                        "sidetable",
                                        "armchair",
                                        "tvstand",
                                        "ottoman",
                                        "drawer"),
                                o(
                                        "statue",
                                        "L",
                                        "shelf",
                                        "coffeetable",
                                        "sidetable",
                                        "dresser",
                                        "diningtable",
                                        "tvstand"),
                                o(
                                        "tissuebox",
                                        "L",
                                        "coffeetable",
                                        "sidetable",
                                        "shelf",
                                        "dresser",
                                        "tvstand"),
                                o(
                                        "vase",
                                        "L",
                                        "shelf",
                                        "coffeetable",
                                        "sidetable",
                                        "diningtable",
                                        "tvstand",
                                        "cabinet"),
                                o(
                                        "watch",
                                        "L",
                                        "coffeetable",
                                        "sidetable",
                                        "shelf",
                                        "dresser",
                                        "drawer",
                                        "box")),
                        List.of(
                                o("floorlamp", "", "sidetable", "sofa", "armchair"),
                                o("desklamp", "", "sidetable", "dresser", "coffeetable"))));
        ROOMS.put(
                RoomType.BEDROOM,
                new RoomSpec(
                        RoomType.BEDROOM,
                        List.of(
                                r("armchair", 0, 1),
                                r("bed", 1, 1),
                                r("box", 0, 1),
                                r("desk", 0, 2),
                                r("drawer", 2, 5),
                                r("dresser", 0, 1),
                                r("garbagecan", 1, 1),
                                r("laundryhamper", 0, 1),
                                r("safe", 0, 1),
                                r("shelf", 0, 3),
                                r("sidetable", 1, 2)),
                        List.of(
                                o("alarmclock", "L", "desk", "sidetable", "dresser", "shelf"),
                                o(
                                        "book",
                                        "L",
                                        "bed",
                                        "desk",
                                        "sidetable",
                                        "shelf",
                                        "dresser",
                                        "drawer"),
                                o("bowl", "L", "desk", "sidetable", "shelf"),
                                o(
                                        "cd",
                                        "L",
                                        "desk",
                                        "sidetable",
                                        "shelf",
                                        "drawer",
                                        "safe",
                                        "garbagecan"),
                                o(
                                        "cellphone",
                                        "L",
                                        "bed",
                                        "desk",
                                        "sidetable",
                                        "dresser",
                                        "drawer"),
                                o("cloth", "", "laundryhamper", "bed", "dresser", "drawer"),
                                o(
                                        "creditcard",
                                        "L",
                                        "desk",
                                        "sidetable",
                                        "dresser",
                                        "shelf",
                                        "drawer"),
                                o(
                                        "keychain",
                                        "L",
                                        "desk",
                                        "sidetable",
                                        "dresser",
                                        "shelf",
                                        "drawer",
                                        "safe",
                                        "box"),
                                o("laptop", "L", "bed", "desk"),
                                o("mug", "L", "desk", "sidetable", "shelf"),
                                o("pen", "L", "desk", "sidetable", "shelf", "drawer"),
                                o("pencil", "L", "desk", "sidetable", "shelf", "drawer"),
                                o("pillow", "L", "bed", "armchair"),
                                o("tissuebox", "L", "sidetable", "desk", "dresser")),
                        List.of(o("desklamp", "", "desk", "sidetable", "dresser"))));
        ROOMS.put(
                RoomType.BATHROOM,
                new RoomSpec(
                        RoomType.BATHROOM,
                        List.of(
                                r("bathtubbasin", 0, 1),
                                r("cabinet", 1, 4),
                                r("countertop", 1, 1),
                                r("drawer", 0, 4),
                                r("garbagecan", 1, 1),
                                r("handtowelholder", 0, 2),
                                r("shelf", 0, 2),
                                r("sinkbasin", 1, 2),
                                r("toilet", 1, 1),
                                r("toiletpaperhanger", 1, 1),
                                r("towelholder", 0, 1)),
                        List.of(
                                o(
                                        "candle",
                                        "",
                                        "countertop",
                                        "toilet",
                                        "shelf",
                                        "cabinet",
                                        "bathtubbasin"),
                                o(
                                        "cloth",
                                        "C",
                                        "countertop",
                                        "cabinet",
                                        "bathtubbasin",
                                        "toilet",
                                        "sinkbasin",
                                        "drawer",
                                        "shelf"),
                                o("handtowel", "", "handtowelholder", "countertop", "cabinet"),
                                o(
                                        "soapbar",
                                        "C",
                                        "countertop",
                                        "bathtubbasin",
                                        "sinkbasin",
                                        "toilet",
                                        "cabinet",
                                        "shelf"),
                                o(
                                        "soapbottle",
                                        "",
                                        "countertop",
                                        "toilet",
                                        "cabinet",
                                        "shelf",
                                        "drawer"),
                                o(
                                        "spraybottle",
                                        "",
                                        "toilet",
                                        "countertop",
                                        "cabinet",
                                        "shelf",
                                        "drawer",
                                        "garbagecan"),
                                o("tissuebox", "", "countertop", "toilet", "shelf"),
                                o(
                                        "toiletpaper",
                                        "",
                                        "toiletpaperhanger",
                                        "toilet",
                                        "countertop",
                                        "cabinet",
                                        "drawer",
                                        "shelf",
                                        "garbagecan"),
                                o(
                                        "towel",
                                        "",
                                        "towelholder",
                                        "countertop",
                                        "cabinet",
                                        "bathtubbasin")),
                        List.of()));
    }

    private Catalog() {}

    static RoomSpec room(final RoomType room) {
        return ROOMS.get(room);
    }

    static boolean openable(final String receptacleType) {
        return OPENABLE.contains(receptacleType);
    }

    private static ReceptacleSpec r(final String type, final int min, final int max) {
        return new ReceptacleSpec(type, min, max);
    }

    private static ObjectSpec o(final String type, final String flags, final String... places) {
        return new ObjectSpec(type, flags, List.of(places));
    }
}
