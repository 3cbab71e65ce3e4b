/**
 * Sampling G continuations per prompt with a KV cache, the log-probs of what was sampled, and stop
 * rules.
 */
package dev.rwml.worldmodel.generate;
