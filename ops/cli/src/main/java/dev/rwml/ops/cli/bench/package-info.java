/** rwml bench: the paper's comparison of arms over seeds, resumable. */
package dev.rwml.ops.cli.bench;
