/** The paper's comparison of arms over seeds, resumable. */
package dev.rwml.pipeline.bench;
