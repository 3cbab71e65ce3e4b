/**
 * The reward stage: joins prediction groups with the observed next states and emits rewarded
 * groups.
 */
package dev.rwml.reward;
