/**
 * The paper's prompt and answer format: recent observations and an action in, think and next_state
 * out.
 */
package dev.rwml.worldmodel.prompt;
