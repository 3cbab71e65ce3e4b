/** rwml demo: the report of a whole run on a local cluster. */
package dev.rwml.ops.cli.demo;
