/**
 * Model artifacts as bytes with a verified manifest, and where their chunks are stored; no Kafka
 * I/O.
 */
package dev.rwml.worldmodel.artifact;
