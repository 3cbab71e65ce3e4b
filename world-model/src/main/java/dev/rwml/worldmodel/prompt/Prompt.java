package dev.rwml.worldmodel.prompt;

/**
 * A built prompt: its text and token ids, how many history turns were dropped to fit, and whether
 * it fits the token budget at all.
 *
 * @param text the prompt text
 * @param tokenIds its tokens
 * @param droppedTurns oldest history turns left out to fit the budget
 * @param fits false when even without history the prompt exceeds the budget
 */
public record Prompt(String text, int[] tokenIds, int droppedTurns, boolean fits) {}
