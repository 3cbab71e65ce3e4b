/**
 * The causal language model interface both model families implement, the small GPT, masks and
 * memory estimates.
 */
package dev.rwml.worldmodel.model;
