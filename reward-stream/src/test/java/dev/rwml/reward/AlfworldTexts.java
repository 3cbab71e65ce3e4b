package dev.rwml.reward;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** ALFWorld-style observation texts (TextWorld templates) for benchmarks and threshold checks. */
final class AlfworldTexts {

    static final String[] RECEPTACLES = {
        "countertop",
        "fridge",
        "cabinet",
        "drawer",
        "shelf",
        "sinkbasin",
        "microwave",
        "garbagecan",
        "diningtable",
        "stoveburner"
    };
    static final String[] OBJECTS = {
        "apple",
        "bread",
        "knife",
        "mug",
        "egg",
        "lettuce",
        "tomato",
        "plate",
        "spoon",
        "potato",
        "saltshaker",
        "peppershaker",
        "cup",
        "pan",
        "bowl"
    };

    private final Random random;

    AlfworldTexts(final long seed) {
        this.random = new Random(seed);
    }

    String items(final int count) {
        final List<String> parts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            parts.add(
                    "a " + OBJECTS[random.nextInt(OBJECTS.length)] + " " + (1 + random.nextInt(3)));
        }
        if (parts.size() == 1) {
            return parts.get(0);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1))
                + ", and "
                + parts.get(parts.size() - 1);
    }

    String receptacle() {
        return RECEPTACLES[random.nextInt(RECEPTACLES.length)] + " " + (1 + random.nextInt(4));
    }

    /** A random observation from one of the game's templates. */
    String observation() {
        final String r = receptacle();
        return switch (random.nextInt(5)) {
            case 0 ->
                    "You arrive at "
                            + r
                            + ". On the "
                            + r
                            + ", you see "
                            + items(1 + random.nextInt(3))
                            + ".";
            case 1 ->
                    "You open the "
                            + r
                            + ". The "
                            + r
                            + " is open. In it, you see "
                            + items(1 + random.nextInt(3))
                            + ".";
            case 2 -> "You arrive at " + r + ". The " + r + " is closed.";
            case 3 ->
                    "You pick up the "
                            + OBJECTS[random.nextInt(OBJECTS.length)]
                            + " 1 from the "
                            + r
                            + ".";
            default -> "Nothing happens.";
        };
    }

    /**
     * One anchor with a paraphrase, the same template with other items, and another observation.
     */
    record Case(String anchor, String paraphrase, String sameTemplate, String other) {}

    Case openCase() {
        final String r = receptacle();
        final String items = items(2);
        return new Case(
                "You open the " + r + ". The " + r + " is open. In it, you see " + items + ".",
                "You open the " + r + ". It is open now. Inside it you see " + items + ".",
                "You open the " + r + ". The " + r + " is open. In it, you see " + items(2) + ".",
                "You arrive at " + receptacle() + ". On it, you see " + items(2) + ".");
    }

    Case arriveCase() {
        final String r = receptacle();
        final String items = items(2);
        return new Case(
                "You arrive at " + r + ". On the " + r + ", you see " + items + ".",
                "You are at " + r + ". On the " + r + " there is " + items + ".",
                "You arrive at " + r + ". On the " + r + ", you see " + items(2) + ".",
                "Nothing happens.");
    }
}
