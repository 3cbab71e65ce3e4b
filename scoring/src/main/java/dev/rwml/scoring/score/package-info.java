/**
 * Scoring a predicted next state against the observed one: embedding cosine or ROUGE-L per kind,
 * binarised at a threshold.
 */
package dev.rwml.scoring.score;
