/**
 * The names of the pipeline's stages, from which each stage's group ids and client ids are derived,
 * and reading the stages' counters back.
 */
package dev.rwml.runtime;
