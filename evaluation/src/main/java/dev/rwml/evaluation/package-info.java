/**
 * Held-out evaluation of model versions: prediction reward, drift, the guided agent and paired
 * bootstrap intervals.
 */
package dev.rwml.evaluation;
