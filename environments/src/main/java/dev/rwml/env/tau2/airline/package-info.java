/** tau2's airline desk: its database, tools and task generators. */
package dev.rwml.env.tau2.airline;
