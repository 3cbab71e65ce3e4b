package dev.rwml.env.tau2;

/** What a user's wallet shows of a credit card: its brand and the last four digits. */
public record CreditCard(String brand, String lastFour) {}
