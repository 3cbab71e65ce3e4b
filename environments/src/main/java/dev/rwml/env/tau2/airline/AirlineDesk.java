package dev.rwml.env.tau2.airline;

import dev.rwml.env.tau2.Splits;
import dev.rwml.env.tau2.Tau2Desk;
import dev.rwml.env.tau2.Tau2Task;
import java.util.SplittableRandom;

/**
 * Factory of airline service-desk episodes: each seed generates its own database and task, and the
 * {@code train} and {@code test} splits use disjoint generator seeds ({@link Splits}).
 */
public final class AirlineDesk {

    private AirlineDesk() {}

    /** An episode with the default step cap. */
    public static Tau2Desk create(final String split, final long seed) {
        return create(split, seed, Tau2Desk.DEFAULT_MAX_STEPS);
    }

    /** An episode with the given cap on agent actions. */
    public static Tau2Desk create(final String split, final long seed, final int maxSteps) {
        final SplittableRandom rng = new SplittableRandom(Splits.generatorSeed(split, seed));
        final AirlineDb db = AirlineDbGenerator.database(rng);
        final Tau2Task task = AirlineTasks.task("airline/" + split + "/" + seed, db, rng);
        return new Tau2Desk(new AirlineTools(db), task, maxSteps);
    }
}
