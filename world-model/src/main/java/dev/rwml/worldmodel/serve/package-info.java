/**
 * Loading a model version for prediction and sampling predictions for transitions with the run's
 * sampling settings.
 */
package dev.rwml.worldmodel.serve;
