/**
 * Dead letters: the record that failed, where it came from, and the reason, for every stage alike.
 */
package dev.rwml.schemas.deadletter;
