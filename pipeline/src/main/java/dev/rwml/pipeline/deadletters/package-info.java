/** Reading dead letters and sending their records back to their source topics. */
package dev.rwml.pipeline.deadletters;
