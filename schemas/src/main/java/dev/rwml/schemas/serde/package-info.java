/** Avro serdes in the Confluent wire format (magic byte, schema id, body) for every event type. */
package dev.rwml.schemas.serde;
