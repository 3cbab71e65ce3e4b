/**
 * {@code rwml serve}: a run's world model behind vLLM's OpenAI-compatible HTTP API (completions,
 * chat completions, tokenize, models) and a world-model call for agents, following the run's model
 * versions as the prediction stage does. One thread owns the model and samples batches of queued
 * requests; a full queue answers 503.
 */
package dev.rwml.serving;
