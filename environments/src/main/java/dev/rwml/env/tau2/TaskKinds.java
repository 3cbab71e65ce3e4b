package dev.rwml.env.tau2;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;

/** Chooses a task kind that a generated database supports, trying the kinds in seeded order. */
public final class TaskKinds {

    private TaskKinds() {}

    /**
     * The task of the first kind, drawn at random without replacement, for which {@code taskOfKind}
     * finds something in the database.
     *
     * @throws IllegalStateException when no kind fits
     */
    public static Tau2Task firstFitting(
            final String id,
            final List<String> kinds,
            final SplittableRandom rng,
            final Function<String, Optional<Tau2Task>> taskOfKind) {
        final List<String> left = new ArrayList<>(kinds);
        while (!left.isEmpty()) {
            final String kind = left.remove(rng.nextInt(left.size()));
            final Optional<Tau2Task> task = taskOfKind.apply(kind);
            if (task.isPresent()) {
                return task.get();
            }
        }
        throw new IllegalStateException("no task kind fits the generated database of " + id);
    }
}
