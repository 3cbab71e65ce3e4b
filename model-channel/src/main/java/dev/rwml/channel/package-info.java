/**
 * The model-update topic: publishing versions in chunks, reading them back verified, following the
 * latest, retaining chunks.
 */
package dev.rwml.channel;
