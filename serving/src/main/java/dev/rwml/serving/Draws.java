package dev.rwml.serving;

import dev.rwml.worldmodel.generate.Sample;
import java.util.List;

/**
 * The completions of one request: its prompts' token ids and n samples per prompt, in order.
 *
 * @param prompts each prompt's token ids
 * @param samples per prompt, its n samples
 */
record Draws(List<int[]> prompts, List<List<Sample>> samples) {}
