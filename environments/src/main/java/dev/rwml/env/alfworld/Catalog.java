package dev.rwml.env.alfworld;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What each room type holds: receptacle types with their count ranges and object types with the
 * receptacle types they plausibly rest in (most likely first) and what can be done to them, read
 * once from {@code catalog.json} beside this class.
 *
 * <p>The place lists double as the expert's search order and bound how far it must search: the
 * largest list costs at most 22 steps (each closed receptacle costs a go and an open), which keeps
 * every generated task solvable well inside the 50-step cap.
 */
final class Catalog {

    private static final String RESOURCE = "catalog.json";

    /** A receptacle type and how many of it a room of that kind has. */
    record ReceptacleSpec(String type, int min, int max) {}

    /**
     * An object type, the receptacle types it is placed in, and its affordances: C cleanable, H
     * heatable, K coolable, L worth looking at under a lamp.
     */
    record ObjectSpec(String type, String flags, List<String> places) {
        ObjectSpec {
            places = List.copyOf(places);
        }

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
            List<ReceptacleSpec> receptacles, List<ObjectSpec> objects, List<ObjectSpec> lamps) {
        RoomSpec {
            receptacles = List.copyOf(receptacles);
            objects = List.copyOf(objects);
            lamps = List.copyOf(lamps);
        }
    }

    /** The resource's shape: the receptacle types that start closed, and each room's contents. */
    private record Tables(Set<String> openable, Map<RoomType, RoomSpec> rooms) {}

    private static final Tables TABLES = load();

    private Catalog() {}

    static RoomSpec room(final RoomType room) {
        return TABLES.rooms().get(room);
    }

    /** True for receptacle types that start closed and must be opened to see or use contents. */
    static boolean openable(final String receptacleType) {
        return TABLES.openable().contains(receptacleType);
    }

    private static Tables load() {
        try (InputStream in = Catalog.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + Catalog.class);
            }
            final Tables read = new ObjectMapper().readValue(in, Tables.class);
            final Map<RoomType, RoomSpec> rooms = new EnumMap<>(read.rooms());
            if (rooms.size() != RoomType.values().length) {
                throw new IllegalStateException(
                        RESOURCE + " must describe every room type, but has " + rooms.keySet());
            }
            return new Tables(Set.copyOf(read.openable()), rooms);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
