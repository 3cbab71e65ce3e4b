/**
 * Tokenizers: a byte-level BPE trainer for the small model, its special tokens, and the tokenizer
 * interface generation uses for both model families.
 */
package dev.rwml.worldmodel.tokenizer;
