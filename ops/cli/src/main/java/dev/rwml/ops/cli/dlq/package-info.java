/** rwml dlq: reading dead letters and sending their records back to their source topics. */
package dev.rwml.ops.cli.dlq;
