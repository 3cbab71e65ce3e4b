/**
 * Training steps: GRPO with the behaviour log-probs, supervised fine-tuning, optimizer and
 * learning-rate schedule.
 */
package dev.rwml.worldmodel.train;
