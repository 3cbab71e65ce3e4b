/**
 * The trainer stage: reads rewarded groups, performs GRPO updates and publishes model versions,
 * exactly once.
 */
package dev.rwml.trainer;
