/**
 * Version 0 of a run: the small base model trained on a pretraining slice, or a Hugging Face
 * checkpoint, published once.
 */
package dev.rwml.channel.init;
