/** Retraining a run from a slice of its topics. */
package dev.rwml.pipeline.replay;
