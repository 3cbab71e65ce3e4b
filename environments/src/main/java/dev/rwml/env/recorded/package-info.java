/**
 * Recorded trajectories from JSONL files, replayed as environments so they give the same
 * transitions as live episodes.
 */
package dev.rwml.env.recorded;
