package dev.rwml.env.tau2;

/** A person's name as the desk databases store it. */
public record Name(String firstName, String lastName) {}
