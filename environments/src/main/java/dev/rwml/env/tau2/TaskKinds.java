package dev.rwml.env.tau2;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;

/** Chooses a task kind that a generated database supports, trying the kinds in seeded order. */
public final class TaskKinds {

    /** Generates the tasks of one kind from a database of type {@code D}. */
    @FunctionalInterface
    public interface Generator<D> {

        /** A task with this id and kind, or empty when nothing in the database fits the kind. */
        Optional<Tau2Task> task(String id, String kind, D db, SplittableRandom rng);
    }

    private TaskKinds() {}

    /**
     * The task of the first kind, drawn at random without replacement, for which {@code taskOfKind}
     * finds something in the database.
     *
     * @throws IllegalStateException when no kind fits
     */
    public static <K> Tau2Task firstFitting(
            final String id,
            final List<K> kinds,
            final SplittableRandom rng,
            final Function<K, Optional<Tau2Task>> taskOfKind) {
        final List<K> left = new ArrayList<>(kinds);
        while (!left.isEmpty()) {
            final K kind = left.remove(rng.nextInt(left.size()));
            final Optional<Tau2Task> task = taskOfKind.apply(kind);
            if (task.isPresent()) {
                return task.get();
            }
        }
        throw new IllegalStateException("no task kind fits the generated database of " + id);
    }
}
