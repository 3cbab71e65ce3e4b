/**
 * Starting, watching and restarting a stage's Kafka Streams threads within a bounded restart
 * policy.
 */
package dev.rwml.runtime.lifecycle;
