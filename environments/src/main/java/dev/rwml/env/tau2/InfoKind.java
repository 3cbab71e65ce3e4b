package dev.rwml.env.tau2;

import java.util.List;
import java.util.Locale;

/**
 * A piece of information the simulated user may hold, with the phrases that count as asking for it
 * and the canonical question the expert asks. The questions are worded so that each one triggers
 * only its own kind.
 */
public enum InfoKind {
    EMAIL("email address", "Could you please tell me the email address on your account?", "email"),
    NAME_ZIP(
            "name and zip code",
            "Could you please tell me your first name, last name and zip code instead?",
            "zip"),
    USER_ID("user id", "Could you please tell me your user id?", "user id"),
    ORDER_ID(
            "order id",
            "Which order is this about? Please tell me the order id (it starts with #W).",
            "order id",
            "order number"),
    RESERVATION_ID(
            "reservation id",
            "Which reservation is this about? Please tell me the reservation id.",
            "reservation id",
            "reservation number"),
    REASON("reason", "May I ask the reason for this request?", "reason"),
    ADDRESS("new address", "What is the new address you would like to use?", "new address"),
    ITEMS(
            "items",
            "Which items is this about, and which options would you like instead, if any?",
            "which item"),
    PAYMENT("payment method", "Which payment method would you like to use?", "payment method"),
    TRIP("trip", "Where are you flying from and to, and on what date?", "flying from", "trip"),
    CABIN("cabin", "Which cabin class and flight would you like?", "cabin"),
    PASSENGERS(
            "passengers",
            "Who will be travelling? Please give each passenger's name and date of birth.",
            "passenger"),
    BAGGAGE("checked bags", "How many checked bags will there be in total?", "checked bag"),
    INSURANCE(
            "travel insurance",
            "Would you like to add travel insurance ($30 per traveller)?",
            "insurance"),
    FLIGHT(
            "flight",
            "Which flight is this about? Please tell me the flight number and date.",
            "flight number");

    private final String label;
    private final String question;
    private final List<String> triggers;

    InfoKind(final String label, final String question, final String... triggers) {
        this.label = label;
        this.question = question;
        this.triggers = List.of(triggers);
    }

    /** Short name used in the user's replies, e.g. {@code email address}. */
    public String label() {
        return label;
    }

    /** The expert's question for this kind; it triggers this kind and no other. */
    public String question() {
        return question;
    }

    /** True when the (agent's) message asks for this kind. */
    public boolean askedIn(final String message) {
        final String lower = message.toLowerCase(Locale.ROOT);
        return triggers.stream().anyMatch(lower::contains);
    }
}
