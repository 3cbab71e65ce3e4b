/**
 * What the CLI shows in a browser or writes beside it: the small HTTP server of the status page,
 * charts, HTML templates and CSV tables.
 */
package dev.rwml.ops.cli.web;
