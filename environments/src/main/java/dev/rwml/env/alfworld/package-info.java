/**
 * A simulator of ALFWorld's text games: scenes, receptacles, goals and the game's own observation
 * texts.
 */
package dev.rwml.env.alfworld;
