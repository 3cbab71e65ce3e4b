/**
 * The world-model library's entry points: the small built-in model, its trainer and the
 * process-wide PyTorch runtime settings.
 */
package dev.rwml.worldmodel;
