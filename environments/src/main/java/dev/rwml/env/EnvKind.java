package dev.rwml.env;

import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import dev.rwml.env.tau2.Splits;
import dev.rwml.env.tau2.airline.AirlineDesk;
import dev.rwml.env.tau2.retail.RetailDesk;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongFunction;
import java.util.stream.Collectors;

/** The environments a producer can run, each with its splits and its episode factory. */
public enum EnvKind {
    /** The ALFWorld-compatible household (splits train, valid_seen, valid_unseen). */
    ALFWORLD("alfworld"),
    /** The tau2-style retail service desk (splits train, test). */
    RETAIL("retail"),
    /** The tau2-style airline service desk (splits train, test). */
    AIRLINE("airline");

    /** The behaviour version recorded for the service desks, which do not declare their own. */
    public static final String TAU2_VERSION = "1";

    private final String id;

    EnvKind(final String id) {
        this.id = id;
    }

    /** The name used on the command line and recorded on transitions. */
    public String id() {
        return id;
    }

    /**
     * The episodes of a split; {@code grammar} applies to ALFWorld only.
     *
     * @throws IllegalArgumentException naming the valid splits when {@code split} is not one
     */
    public EnvironmentSource source(final String split, final Grammar grammar) {
        return switch (this) {
            case ALFWORLD -> AlfworldGames.source(Split.of(split), grammar);
            case RETAIL -> desk(split, seed -> RetailDesk.create(split, seed));
            case AIRLINE -> desk(split, seed -> AirlineDesk.create(split, seed));
        };
    }

    private EnvironmentSource desk(final String split, final LongFunction<Environment> f) {
        // Fails fast with the valid split names instead of on the first episode.
        Splits.generatorSeed(split, 0);
        return new EnvironmentSource(id, TAU2_VERSION, split, f);
    }

    /** Parses {@code alfworld}, {@code retail} or {@code airline} (case-insensitive). */
    public static EnvKind of(final String text) {
        final String wanted = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(e -> e.id.equals(wanted))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown environment '"
                                                + text
                                                + "'; use one of "
                                                + Arrays.stream(values())
                                                        .map(EnvKind::id)
                                                        .collect(Collectors.joining(", "))));
    }
}
