package dev.rwml.worldmodel.serve;

import dev.rwml.events.Transition;
import java.nio.charset.StandardCharsets;

/** The checks a decoded transition must pass before a world model generates for it. */
public final class TransitionRules {

    private TransitionRules() {}

    /** Returns why the transition is unusable, or null when it is fine. */
    public static String invalidReason(final byte[] key, final Transition transition) {
        final String id = transition.getTransitionId();
        if (id == null || id.isBlank()) {
            return "transitionId is blank; producers must set <env>/<episodeId>/<step>";
        }
        if (key == null) {
            return "record has no key; transitions must be keyed by their transitionId so"
                    + " predictions co-partition with them";
        }
        final String keyText = new String(key, StandardCharsets.UTF_8);
        if (!keyText.equals(id)) {
            return "record key '"
                    + keyText
                    + "' differs from transitionId '"
                    + id
                    + "'; key transitions by their transitionId";
        }
        if (transition.getEnv().getName().isBlank()) {
            return "env.name is blank";
        }
        if (transition.getStep() < 0) {
            return "step is " + transition.getStep() + ", must be >= 0";
        }
        if (transition.getAction().isBlank()) {
            return "action is blank: nothing to predict the effect of";
        }
        if (!Double.isFinite(transition.getEnvReward())) {
            return "envReward is " + transition.getEnvReward() + ", must be a finite number";
        }
        return controlCharactersOnly(transition);
    }

    /**
     * Why a transition's action or observation is nothing but control characters, or null: the
     * model would be asked to predict the effect of, or from, bytes no agent wrote.
     */
    private static String controlCharactersOnly(final Transition transition) {
        if (controlOnly(transition.getAction())) {
            return "action consists only of control characters ("
                    + codes(transition.getAction())
                    + "): nothing to predict the effect of";
        }
        if (controlOnly(transition.getObservation())) {
            return "observation consists only of control characters ("
                    + codes(transition.getObservation())
                    + "): the producer wrote no text";
        }
        return null;
    }

    private static boolean controlOnly(final String text) {
        return text.codePoints()
                        .allMatch(c -> Character.isISOControl(c) || Character.isWhitespace(c))
                && text.codePoints()
                        .anyMatch(c -> Character.isISOControl(c) && !Character.isWhitespace(c));
    }

    private static String codes(final String text) {
        final StringBuilder out = new StringBuilder();
        text.codePoints()
                .limit(8)
                .forEach(
                        c ->
                                out.append(out.length() == 0 ? "" : " ")
                                        .append(String.format("U+%04X", c)));
        return text.length() > 8 ? out + " ..." : out.toString();
    }
}
