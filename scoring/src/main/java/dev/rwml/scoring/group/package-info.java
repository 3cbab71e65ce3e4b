/**
 * Statistics of a group of G rewards, advantages and the subsampling of groups that are too easy.
 */
package dev.rwml.scoring.group;
