/** The rwml command: one picocli command per verb, options in, then a stage or an orchestration. */
package dev.rwml.ops.cli;
