/**
 * Watching a run: lag, progress, versions and dead letters read from the cluster, and what a run
 * reports for its command to render (progress lines and live facts).
 */
package dev.rwml.pipeline.watch;
