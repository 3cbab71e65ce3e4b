/**
 * Kafka Streams error handlers that send undecodable or failing records to the run's dead-letter
 * topic and keep the stage running.
 */
package dev.rwml.runtime.streams;
