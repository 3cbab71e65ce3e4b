/**
 * A client of a schema registry's Confluent-compatible REST API, with retries and an error taxonomy
 * the stages act on.
 */
package dev.rwml.schemas.registry;
