/**
 * Sentence embeddings: MiniLM in-process, an OpenAI-compatible server, and a cache in front of
 * either.
 */
package dev.rwml.scoring.embed;
