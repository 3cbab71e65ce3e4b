/** rwml eval's output: the text, CSV and HTML renderings of an evaluation report. */
package dev.rwml.ops.cli.eval;
