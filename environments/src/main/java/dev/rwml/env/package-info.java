/**
 * Environments, agents and the episode runner that turns their steps into transitions; no Kafka.
 */
package dev.rwml.env;
