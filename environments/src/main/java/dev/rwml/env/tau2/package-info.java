/**
 * A simulator of tau2-bench's customer-service desks: tools, a scripted user and the policies the
 * agent must follow.
 */
package dev.rwml.env.tau2;
