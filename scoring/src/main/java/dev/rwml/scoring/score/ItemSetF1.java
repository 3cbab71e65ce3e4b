package dev.rwml.scoring.score;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A structured reward for next states that list what the agent sees (ALFWorld's {@code On the
 * countertop 1, you see a apple 1, a mug 2, and a bread 1.}): when both texts are such a list after
 * the same words, the F1 of the two lists as sets of items, so the order of the items does not
 * matter and a wrong item does; otherwise exact match after collapsing whitespace. A one-item error
 * in a list of n scores (n - 1) / n: the threshold decides how many wrong items pass.
 */
public final class ItemSetF1 {

    private static final Pattern LIST = Pattern.compile("^(.*you see )(.+)\\.$", Pattern.DOTALL);
    private static final Pattern SPACES = Pattern.compile("\\s+");

    private ItemSetF1() {}

    /** The similarity of {@code predicted} to {@code observed}, in [0, 1]. */
    public static double score(final String observed, final String predicted) {
        final String o = normalize(observed);
        final String p = normalize(predicted);
        final Matcher om = LIST.matcher(o);
        final Matcher pm = LIST.matcher(p);
        if (!om.matches() || !pm.matches() || !om.group(1).equals(pm.group(1))) {
            return o.equals(p) ? 1.0 : 0.0;
        }
        final Set<String> want = new LinkedHashSet<>(parse(om.group(2)));
        final Set<String> got = new LinkedHashSet<>(parse(pm.group(2)));
        if (want.isEmpty() || got.isEmpty()) {
            return want.equals(got) ? 1.0 : 0.0;
        }
        final long common = got.stream().filter(want::contains).count();
        return 2.0 * common / (want.size() + got.size());
    }

    /** The listed items of a text ("a apple 1, a mug 2, and a bread 1"), empty when none. */
    public static List<String> items(final String text) {
        final Matcher m = LIST.matcher(normalize(text));
        return m.matches() ? parse(m.group(2)) : List.of();
    }

    private static List<String> parse(final String list) {
        if (list.equals("nothing")) {
            return List.of();
        }
        final List<String> out = new ArrayList<>();
        for (final String part : list.replace(", and ", ", ").split(", ")) {
            final String item = part.strip();
            out.add(item.startsWith("a ") ? item.substring(2) : item);
        }
        return out;
    }

    private static String normalize(final String text) {
        return SPACES.matcher(text.strip()).replaceAll(" ");
    }
}
