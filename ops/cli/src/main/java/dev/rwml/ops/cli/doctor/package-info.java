/** rwml doctor: the checks a user runs first when something is off, one line each. */
package dev.rwml.ops.cli.doctor;
