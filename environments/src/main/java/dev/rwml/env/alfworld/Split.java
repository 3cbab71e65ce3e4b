package dev.rwml.env.alfworld;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The ALFWorld data splits; see {@link AlfworldGames} for how games are assigned to them. */
public enum Split {
    /** Training games on seen layouts. */
    TRAIN("train"),
    /** Held-out games (new object placements and tasks) on the training layouts. */
    VALID_SEEN("valid_seen"),
    /** Games on layouts that never occur in the other splits. */
    VALID_UNSEEN("valid_unseen");

    private final String id;

    Split(final String id) {
        this.id = id;
    }

    /** The name recorded on transitions, e.g. {@code valid_seen}. */
    public String id() {
        return id;
    }

    /** Parses {@code train}, {@code valid_seen} or {@code valid_unseen} (case-insensitive). */
    public static Split of(final String text) {
        final String wanted = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(s -> s.id.equals(wanted))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "Unknown ALFWorld split '"
                                                + text
                                                + "'; use one of "
                                                + Arrays.stream(values())
                                                        .map(Split::id)
                                                        .collect(Collectors.joining(", "))));
    }
}
