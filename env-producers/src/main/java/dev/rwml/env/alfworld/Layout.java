package dev.rwml.env.alfworld;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * A room: its kind and its numbered receptacles. Objects are not part of a layout: each game places
 * them anew, as the benchmark's games re-use a scene with new object placements.
 *
 * @param receptacles in the order of the opening sentence: type ascending, number descending
 * @param types the receptacle types present
 */
record Layout(int id, RoomType room, List<Receptacle> receptacles, Set<String> types) {

    Layout(final int id, final RoomType room, final List<Receptacle> receptacles) {
        this(
                id,
                room,
                List.copyOf(receptacles),
                receptacles.stream().map(Receptacle::type).collect(Collectors.toUnmodifiableSet()));
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
        final List<Receptacle> numbered = new ArrayList<>();
        for (int i = 0; i < made.size(); i++) {
            numbered.add(new Receptacle(made.get(i).type(), made.get(i).number(), locs.get(i)));
        }
        numbered.sort(
                Comparator.comparing(Receptacle::type)
                        .thenComparing(Receptacle::number, Comparator.reverseOrder()));
        return new Layout(id, room, List.copyOf(numbered));
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
