/**
 * The prediction stage: samples G world-model predictions per transition and hot-swaps model
 * versions.
 */
package dev.rwml.prediction;
