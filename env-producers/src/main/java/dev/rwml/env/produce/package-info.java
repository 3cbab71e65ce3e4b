/**
 * The environment producer stage: runs episodes and publishes their transitions, rate-limited,
 * idempotently.
 */
package dev.rwml.env.produce;
