/** The small model's checkpoint format (safetensors in a zip) and its reading and writing. */
package dev.rwml.worldmodel.checkpoint;
