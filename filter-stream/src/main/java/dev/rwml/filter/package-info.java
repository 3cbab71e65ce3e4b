/**
 * The difficulty filter stage: a filter model tries each transition K times and most easy ones are
 * dropped.
 */
package dev.rwml.filter;
