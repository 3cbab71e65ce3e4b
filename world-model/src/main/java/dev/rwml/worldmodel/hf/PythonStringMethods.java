package dev.rwml.worldmodel.hf;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * The Python {@code str} methods Hugging Face chat templates call ({@code startswith}, {@code
 * endswith}, {@code strip}/{@code lstrip}/{@code rstrip} with or without characters, {@code split}
 * with Python's semantics, {@code upper}, {@code lower}, {@code replace}), resolved for Java
 * strings ahead of the engine's default resolver.
 */
final class PythonStringMethods extends ELResolver {

    @Override
    public Object invoke(
            final ELContext context,
            final Object base,
            final Object method,
            final Class<?>[] paramTypes,
            final Object[] params) {
        if (!(base instanceof String s) || method == null) {
            return null;
        }
        final Object[] args = params == null ? new Object[0] : params;
        final Object result = call(s, method.toString(), args);
        if (result != null) {
            context.setPropertyResolved(true);
        }
        return result;
    }

    private static Object call(final String s, final String method, final Object[] args) {
        return switch (method) {
            case "startswith" -> args.length == 1 ? anyMatch(s, args[0], true) : null;
            case "endswith" -> args.length == 1 ? anyMatch(s, args[0], false) : null;
            case "strip" -> strip(strip(s, chars(args), true), chars(args), false);
            case "lstrip" -> strip(s, chars(args), true);
            case "rstrip" -> strip(s, chars(args), false);
            case "split" -> split(s, args);
            case "upper" -> args.length == 0 ? s.toUpperCase(Locale.ROOT) : null;
            case "lower" -> args.length == 0 ? s.toLowerCase(Locale.ROOT) : null;
            case "replace" ->
                    args.length == 2 ? s.replace(args[0].toString(), args[1].toString()) : null;
            default -> null;
        };
    }

    private static Boolean anyMatch(final String s, final Object arg, final boolean prefix) {
        final List<String> options = new ArrayList<>();
        if (arg instanceof Iterable<?> many) {
            many.forEach(o -> options.add(o.toString()));
        } else {
            options.add(String.valueOf(arg));
        }
        for (final String o : options) {
            if (prefix ? s.startsWith(o) : s.endsWith(o)) {
                return true;
            }
        }
        return false;
    }

    /** null means Python's default: whitespace. */
    private static String chars(final Object[] args) {
        return args.length == 0 || args[0] == null ? null : args[0].toString();
    }

    private static String strip(final String s, final String chars, final boolean leading) {
        int from = 0;
        int to = s.length();
        if (leading) {
            while (from < to && strippable(s.charAt(from), chars)) {
                from++;
            }
        } else {
            while (to > from && strippable(s.charAt(to - 1), chars)) {
                to--;
            }
        }
        return s.substring(from, to);
    }

    private static boolean strippable(final char c, final String chars) {
        return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
    }

    /** Python's str.split: a literal separator keeps empty parts; no separator splits on runs. */
    private static List<String> split(final String s, final Object[] args) {
        final List<String> parts = new ArrayList<>();
        if (args.length == 0 || args[0] == null) {
            for (final String p : s.trim().split("\\s+")) {
                if (!p.isEmpty()) {
                    parts.add(p);
                }
            }
            return parts;
        }
        final String sep = args[0].toString();
        if (sep.isEmpty()) {
            throw new IllegalArgumentException("split: empty separator");
        }
        int limit = args.length > 1 ? ((Number) args[1]).intValue() : -1;
        int from = 0;
        int at;
        while (limit != 0 && (at = s.indexOf(sep, from)) >= 0) {
            parts.add(s.substring(from, at));
            from = at + sep.length();
            limit--;
        }
        parts.add(s.substring(from));
        return parts;
    }

    @Override
    public Class<?> getCommonPropertyType(final ELContext context, final Object base) {
        return null;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(
            final ELContext context, final Object base) {
        return null;
    }

    @Override
    public Class<?> getType(final ELContext context, final Object base, final Object property) {
        return null;
    }

    @Override
    public Object getValue(final ELContext context, final Object base, final Object property) {
        return null;
    }

    @Override
    public boolean isReadOnly(final ELContext context, final Object base, final Object property) {
        return true;
    }

    @Override
    public void setValue(
            final ELContext context, final Object base, final Object property, final Object value) {
        // never resolves a property
    }
}
