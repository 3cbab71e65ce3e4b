/** The settings that choose how predictions are scored and which embedding model scores them. */
package dev.rwml.scoring;
