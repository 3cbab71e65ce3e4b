/** rwml demo: a whole run on a local cluster, its progress view and its report. */
package dev.rwml.ops.cli.demo;
