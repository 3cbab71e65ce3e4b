package dev.rwml.env.alfworld;

import java.util.Locale;

/** The four kinds of room an ALFWorld household scene can be. */
public enum RoomType {
    KITCHEN,
    LIVINGROOM,
    BEDROOM,
    BATHROOM;

    /** The lower-case name recorded in transition metadata. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
