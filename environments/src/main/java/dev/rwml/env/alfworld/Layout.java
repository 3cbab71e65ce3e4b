package dev.rwml.env.alfworld;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A room: its kind and its numbered receptacles. Objects are not part of a layout: each game places
 * them anew, as the benchmark's games re-use a scene with new object placements.
 *
 * <p>Some receptacles stand side by side, as in the real scenes (two stoveburners, two cabinets):
 * the agent at one of them faces both ({@code You are facing the stoveburner 3, and stoveburner
 * 1.}) and the older grammar gives both the same {@code loc N}.
 *
 * @param receptacles in the order of the opening sentence: type ascending, number descending
 * @param types the receptacle types present
 * @param neighbours receptacle name to the receptacle beside it, both ways; absent when alone
 */
record Layout(
        int id,
        RoomType room,
        List<Receptacle> receptacles,
        Set<String> types,
        Map<String, String> neighbours) {

    Layout(
            final int id,
            final RoomType room,
            final List<Receptacle> receptacles,
            final Map<String, String> neighbours) {
        this(
                id,
                room,
                List.copyOf(receptacles),
                receptacles.stream().map(Receptacle::type).collect(Collectors.toUnmodifiableSet()),
                Map.copyOf(neighbours));
    }

    Layout(final int id, final RoomType room, final List<Receptacle> receptacles) {
        this(id, room, receptacles, Map.of());
    }

    /** Builds layout {@code id} of the given room kind from its own random stream. */
    static Layout generate(final int id, final RoomType room) {
        final SplittableRandom rng = new SplittableRandom(Mix.mix(0x1A70_07L, id));
        final List<Receptacle> made = new ArrayList<>();
        for (final Catalog.ReceptacleSpec spec : Catalog.room(room).receptacles()) {
            final int count = spec.min() + rng.nextInt(spec.max() - spec.min() + 1);
            for (int n = 1; n <= count; n++) {
                made.add(new Receptacle(spec.type(), n, 0));
            }
        }
        // The older grammar names places "loc N"; the numbers are a per-layout permutation.
        final List<Integer> locs = new ArrayList<>();
        for (int i = 0; i < made.size(); i++) {
            locs.add(i + 1);
        }
        for (int i = locs.size() - 1; i > 0; i--) {
            final int j = rng.nextInt(i + 1);
            final Integer swap = locs.get(i);
            locs.set(i, locs.get(j));
            locs.set(j, swap);
        }
        final Map<String, String> neighbours = pairNeighbours(id, made);
        final List<Receptacle> numbered = new ArrayList<>();
        for (int i = 0; i < made.size(); i++) {
            final String neighbour = neighbours.get(made.get(i).name());
            int loc = locs.get(i);
            if (neighbour != null) {
                // a pair shares the loc of whichever of the two comes first
                final int other = indexOf(made, neighbour);
                loc = locs.get(Math.min(i, other));
            }
            numbered.add(new Receptacle(made.get(i).type(), made.get(i).number(), loc));
        }
        numbered.sort(
                Comparator.comparing(Receptacle::type)
                        .thenComparing(Receptacle::number, Comparator.reverseOrder()));
        return new Layout(id, room, numbered, neighbours);
    }

    /**
     * Pairs receptacles of one type at random, each pair kept with probability one half, from the
     * layout's own second random stream (so the counts and loc numbers drawn above do not change).
     */
    private static Map<String, String> pairNeighbours(final int id, final List<Receptacle> made) {
        final SplittableRandom rng = new SplittableRandom(Mix.mix(0x5EE_B1DEL, id));
        final Map<String, List<Receptacle>> byType = new TreeMap<>();
        for (final Receptacle r : made) {
            byType.computeIfAbsent(r.type(), t -> new ArrayList<>()).add(r);
        }
        final Map<String, String> neighbours = new HashMap<>();
        for (final List<Receptacle> same : byType.values()) {
            final List<Receptacle> order = new ArrayList<>(same);
            for (int i = order.size() - 1; i > 0; i--) {
                final int j = rng.nextInt(i + 1);
                final Receptacle swap = order.get(i);
                order.set(i, order.get(j));
                order.set(j, swap);
            }
            for (int i = 0; i + 1 < order.size(); i += 2) {
                if (rng.nextBoolean()) {
                    neighbours.put(order.get(i).name(), order.get(i + 1).name());
                    neighbours.put(order.get(i + 1).name(), order.get(i).name());
                }
            }
        }
        return neighbours;
    }

    private static int indexOf(final List<Receptacle> made, final String name) {
        for (int i = 0; i < made.size(); i++) {
            if (made.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("No receptacle " + name);
    }

    boolean has(final String type) {
        return types.contains(type);
    }

    List<Receptacle> ofType(final String type) {
        return receptacles.stream()
                .filter(r -> r.type().equals(type))
                .sorted(Comparator.comparingInt(Receptacle::number))
                .toList();
    }
}
