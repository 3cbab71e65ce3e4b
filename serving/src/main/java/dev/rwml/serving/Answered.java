package dev.rwml.serving;

/**
 * What the model thread computed, with the version that computed it.
 *
 * @param version the model version that answered
 * @param value the answer
 */
record Answered<T>(long version, T value) {}
