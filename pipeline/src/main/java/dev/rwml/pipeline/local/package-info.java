/** A whole run on a local embedded cluster: the stages in this JVM, watched until done. */
package dev.rwml.pipeline.local;
