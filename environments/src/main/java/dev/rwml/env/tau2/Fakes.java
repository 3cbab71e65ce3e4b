package dev.rwml.env.tau2;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Seeded generators of names, addresses and ids shared by the domains' database generators. */
public final class Fakes {

    private static final List<String> FIRST =
            List.of(
                    "sara", "ivan", "mia", "omar", "yusuf", "lei", "emma", "noah", "aisha", "chen",
                    "lucas", "fatima", "mason", "sofia", "raj", "olivia", "mei", "ethan", "amelia",
                    "daiki", "harper", "juan", "nora", "liam");
    private static final List<String> LAST =
            List.of(
                    "doe",
                    "garcia",
                    "kim",
                    "nguyen",
                    "rossi",
                    "smith",
                    "patel",
                    "lopez",
                    "khan",
                    "muller",
                    "silva",
                    "brown",
                    "ito",
                    "jackson",
                    "hernandez",
                    "wilson",
                    "santos",
                    "ahmed",
                    "li",
                    "moore");
    private static final List<String> STREETS =
            List.of(
                    "Oak Street",
                    "Maple Avenue",
                    "Cedar Lane",
                    "Pine Road",
                    "Elm Street",
                    "Lakeview Drive",
                    "Hillcrest Road",
                    "Sunset Boulevard",
                    "River Road",
                    "Park Avenue");
    private static final List<String[]> CITIES =
            List.of(
                    new String[] {"Austin", "TX", "787"},
                    new String[] {"Denver", "CO", "802"},
                    new String[] {"Seattle", "WA", "981"},
                    new String[] {"Columbus", "OH", "432"},
                    new String[] {"Phoenix", "AZ", "850"},
                    new String[] {"Charlotte", "NC", "282"},
                    new String[] {"San Diego", "CA", "921"},
                    new String[] {"Boston", "MA", "021"},
                    new String[] {"Chicago", "IL", "606"},
                    new String[] {"Portland", "OR", "972"});

    private Fakes() {}

    /** One element, uniformly. */
    public static <T> T pick(final SplittableRandom rng, final List<T> list) {
        return list.get(rng.nextInt(list.size()));
    }

    /** One element of those that fit, uniformly, or empty when none does. */
    public static <T> Optional<T> pickFitting(
            final SplittableRandom rng, final Collection<T> all, final Predicate<T> fits) {
        final List<T> candidates = all.stream().filter(fits).toList();
        return candidates.isEmpty() ? Optional.empty() : Optional.of(pick(rng, candidates));
    }

    /** {@code n} decimal digits, leading zeros allowed. */
    public static String digits(final SplittableRandom rng, final int n) {
        final StringBuilder out = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            out.append((char) ('0' + rng.nextInt(10)));
        }
        return out.toString();
    }

    /** {@code n} upper-case letters and digits, e.g. a reservation id. */
    public static String code(final SplittableRandom rng, final int n) {
        final String alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
        final StringBuilder out = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            out.append(alphabet.charAt(rng.nextInt(alphabet.length())));
        }
        return out.toString();
    }

    /** A name; parts are capitalised. */
    public static Name name(final SplittableRandom rng) {
        return new Name(capital(pick(rng, FIRST)), capital(pick(rng, LAST)));
    }

    /** A user id like {@code sara_doe_496}. */
    public static String userId(final SplittableRandom rng, final Name name) {
        return name.firstName().toLowerCase()
                + "_"
                + name.lastName().toLowerCase()
                + "_"
                + (100 + rng.nextInt(9900));
    }

    /** An email address like {@code sara.doe1234@example.com}. */
    public static String email(final SplittableRandom rng, final Name name) {
        return name.firstName().toLowerCase()
                + "."
                + name.lastName().toLowerCase()
                + digits(rng, 4)
                + "@example.com";
    }

    /** A visa or mastercard and its last four digits. */
    public static CreditCard creditCard(final SplittableRandom rng) {
        return new CreditCard(rng.nextBoolean() ? "visa" : "mastercard", digits(rng, 4));
    }

    /** The first of {@code draw}'s values that is not yet in {@code taken}, which now holds it. */
    public static String unique(final Set<String> taken, final Supplier<String> draw) {
        String id;
        do {
            id = draw.get();
        } while (!taken.add(id));
        return id;
    }

    /** A US address. */
    public static Address address(final SplittableRandom rng) {
        final String[] city = pick(rng, CITIES);
        final String second = rng.nextInt(3) == 0 ? "Suite " + (100 + rng.nextInt(900)) : "";
        return new Address(
                (1 + rng.nextInt(999)) + " " + pick(rng, STREETS),
                second,
                city[0],
                city[1],
                "USA",
                city[2] + digits(rng, 2));
    }

    /** A date of birth {@code yyyy-mm-dd} between 1950 and 2005. */
    public static String dateOfBirth(final SplittableRandom rng) {
        return String.format(
                "%d-%02d-%02d", 1950 + rng.nextInt(56), 1 + rng.nextInt(12), 1 + rng.nextInt(28));
    }

    private static String capital(final String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
