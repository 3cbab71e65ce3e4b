/** Prometheus metrics options shared by the commands that run stages. */
package dev.rwml.ops.cli.metrics;
