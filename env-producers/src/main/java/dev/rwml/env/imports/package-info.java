/**
 * Importing recorded trajectories into the transitions topic, keyed and shaped like live
 * transitions.
 */
package dev.rwml.env.imports;
