/** The small HTTP server and charts of the status page. */
package dev.rwml.ops.cli.web;
