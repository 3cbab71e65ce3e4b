package dev.rwml.env.alfworld;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixed space of layouts and its deterministic partition into seen and unseen layouts.
 *
 * <p>There are {@value #PER_ROOM} layouts of each room kind; ids run room by room. A layout is
 * unseen when a hash of its id falls in one eighth of the hash space, so the partition depends on
 * nothing but the id and never changes between runs or machines.
 */
final class Layouts {
    static final int PER_ROOM = 60;
    static final int COUNT = PER_ROOM * RoomType.values().length;

    private static final long UNSEEN_SALT = 0x5EE_5EE5L;
    private static final Layout[] ALL = new Layout[COUNT];

    static {
        for (int id = 0; id < COUNT; id++) {
            ALL[id] = Layout.generate(id, RoomType.values()[id / PER_ROOM]);
        }
    }

    private Layouts() {}

    static Layout get(final int id) {
        return ALL[id];
    }

    static boolean unseen(final int id) {
        return Math.floorMod(Mix.mix(UNSEEN_SALT, id), 8) == 0;
    }

    /** Layout ids of the room kinds given, seen or unseen ones, in id order. */
    static List<Integer> ids(final boolean unseen, final List<RoomType> rooms) {
        final List<Integer> ids = new ArrayList<>();
        for (int id = 0; id < COUNT; id++) {
            if (unseen(id) == unseen && rooms.contains(ALL[id].room())) {
                ids.add(id);
            }
        }
        return ids;
    }
}
