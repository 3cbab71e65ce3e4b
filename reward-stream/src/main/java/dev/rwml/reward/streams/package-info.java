/**
 * The reward topology's parts: the join's values and misses, the lateness check, timing, and
 * dead-letter building.
 */
package dev.rwml.reward.streams;
