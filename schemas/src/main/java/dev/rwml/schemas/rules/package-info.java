/**
 * Rules on event contents that more than one stage checks alike, such as the size of a prediction
 * group.
 */
package dev.rwml.schemas.rules;
