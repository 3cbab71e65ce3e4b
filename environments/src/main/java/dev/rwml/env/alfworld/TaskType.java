package dev.rwml.env.alfworld;

/** The six ALFWorld task types, each with its two goal phrasings. */
public enum TaskType {
    PICK_AND_PLACE_SIMPLE(
            "pick_and_place_simple", "put a {obj} in {recep}.", "put some {obj} on {recep}."),
    LOOK_AT_OBJ_IN_LIGHT(
            "look_at_obj_in_light",
            "look at {obj} under the {lamp}.",
            "examine the {obj} with the {lamp}."),
    PICK_CLEAN_THEN_PLACE_IN_RECEP(
            "pick_clean_then_place_in_recep",
            "put a clean {obj} in {recep}.",
            "clean some {obj} and put it in {recep}."),
    PICK_HEAT_THEN_PLACE_IN_RECEP(
            "pick_heat_then_place_in_recep",
            "put a hot {obj} in {recep}.",
            "heat some {obj} and put it in {recep}."),
    PICK_COOL_THEN_PLACE_IN_RECEP(
            "pick_cool_then_place_in_recep",
            "put a cool {obj} in {recep}.",
            "cool some {obj} and put it in {recep}."),
    PICK_TWO_OBJ_AND_PLACE(
            "pick_two_obj_and_place",
            "put two {obj} in {recep}.",
            "find two {obj} and put them in {recep}.");

    private final String id;
    private final String firstPhrasing;
    private final String secondPhrasing;

    TaskType(final String id, final String firstPhrasing, final String secondPhrasing) {
        this.id = id;
        this.firstPhrasing = firstPhrasing;
        this.secondPhrasing = secondPhrasing;
    }

    /** The benchmark's name of the type, e.g. {@code pick_and_place_simple}. */
    public String id() {
        return id;
    }

    /** The goal text in phrasing 0 or 1, filled with the object, receptacle and lamp types. */
    public String phrase(
            final int phrasing, final String obj, final String recep, final String lamp) {
        final String template = phrasing == 0 ? firstPhrasing : secondPhrasing;
        return template.replace("{obj}", obj)
                .replace("{recep}", recep == null ? "" : recep)
                .replace("{lamp}", lamp == null ? "" : lamp);
    }

    /** The appliance receptacle type the task needs (sinkbasin, microwave, fridge), or null. */
    String appliance() {
        return switch (this) {
            case PICK_CLEAN_THEN_PLACE_IN_RECEP -> "sinkbasin";
            case PICK_HEAT_THEN_PLACE_IN_RECEP -> "microwave";
            case PICK_COOL_THEN_PLACE_IN_RECEP -> "fridge";
            default -> null;
        };
    }
}
