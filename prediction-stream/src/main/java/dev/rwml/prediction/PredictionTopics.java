package dev.rwml.prediction;

/**
 * The topics one prediction run reads and writes.
 *
 * @param transitions the shared transitions log
 * @param predictions the run's prediction groups
 * @param deadLetters the run's dead letters
 * @param models the run's model version manifests
 */
public record PredictionTopics(
        String transitions, String predictions, String deadLetters, String models) {}
