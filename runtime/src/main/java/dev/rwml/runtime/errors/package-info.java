/**
 * The error policy of every stage: retry an outage, dead-letter bad input, stop on unfit settings
 * or refused access.
 */
package dev.rwml.runtime.errors;
