/**
 * Agents that act in the environments: random, expert, and expert with an epsilon of random
 * actions.
 */
package dev.rwml.env.agent;
