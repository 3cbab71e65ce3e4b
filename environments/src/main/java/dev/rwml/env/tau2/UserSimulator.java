package dev.rwml.env.tau2;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A rule-based customer that follows its {@link UserScenario}: it answers only what it is asked,
 * confirms when asked to confirm, ends with {@value #STOP} once its goal is met and with {@value
 * #TRANSFER} once it has been handed to a human. Deterministic: the same messages give the same
 * replies.
 */
public final class UserSimulator {

    /** The token that ends a conversation whose goal is met. */
    public static final String STOP = "###STOP###";

    /** The token that ends a conversation handed to a human agent. */
    public static final String TRANSFER = "###TRANSFER###";

    private final UserScenario scenario;
    private final Set<InfoKind> revealed = EnumSet.noneOf(InfoKind.class);

    /** A user that follows the given instructions. */
    public UserSimulator(final UserScenario scenario) {
        this.scenario = scenario;
    }

    /** The user's first message: the reason for the call, no identifiers. */
    public String opening() {
        return scenario.opening();
    }

    /** The kinds of information given so far. */
    public Set<InfoKind> revealed() {
        return EnumSet.copyOf(revealed);
    }

    /**
     * The reply to an agent message.
     *
     * @param goalMet whether the user's goal is reached (database and required information)
     * @param transferred whether the agent has handed the conversation to a human
     */
    public String reply(final String message, final boolean goalMet, final boolean transferred) {
        if (transferred) {
            return TRANSFER;
        }
        if (goalMet) {
            return "Great, that's everything I needed. Thank you! " + STOP;
        }
        final String lower = message.toLowerCase(Locale.ROOT);
        if (lower.contains("(yes/no)") || lower.contains("confirm")) {
            return "Yes, please go ahead.";
        }
        final List<String> parts = new ArrayList<>();
        for (final InfoKind kind : InfoKind.values()) {
            if (!kind.askedIn(message)) {
                continue;
            }
            if (scenario.known().containsKey(kind)) {
                revealed.add(kind);
                parts.add(scenario.known().get(kind));
            } else if (scenario.unknown().contains(kind)) {
                parts.add("Sorry, I don't remember my " + kind.label() + ".");
            } else {
                parts.add("I don't have anything to say about the " + kind.label() + ".");
            }
        }
        if (parts.isEmpty()) {
            return "Sorry, I'm not sure what you mean. " + scenario.reminder();
        }
        return String.join(" ", parts);
    }
}
