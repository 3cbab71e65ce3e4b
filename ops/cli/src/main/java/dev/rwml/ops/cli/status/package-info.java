/** rwml status: lag, progress, versions and dead letters of a run, as text and as a web page. */
package dev.rwml.ops.cli.status;
