/** rwml replay: retraining a run from a slice of its topics. */
package dev.rwml.ops.cli.replay;
