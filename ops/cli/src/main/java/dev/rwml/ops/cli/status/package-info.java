/** rwml status: a run's lag, progress, versions and dead letters as text and as a web page. */
package dev.rwml.ops.cli.status;
