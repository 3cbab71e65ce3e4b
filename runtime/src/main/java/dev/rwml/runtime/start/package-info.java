/**
 * Where a stage starts reading when its group is new: the earliest, the latest or a point in time.
 */
package dev.rwml.runtime.start;
