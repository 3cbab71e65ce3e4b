/**
 * The live view of the long-running commands: a run's facts, rendered as a panel redrawn in place
 * on a terminal or as short plain lines on a pipe.
 */
package dev.rwml.ops.cli.live;
