/**
 * Stage settings from files, environment and flags, validated at start, and the cluster connection
 * every client is built from.
 */
package dev.rwml.runtime.settings;
