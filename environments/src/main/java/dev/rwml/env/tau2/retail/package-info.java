/** tau2's retail desk: its database, tools and task generators. */
package dev.rwml.env.tau2.retail;
