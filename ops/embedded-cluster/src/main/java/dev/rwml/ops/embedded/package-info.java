/**
 * A local cluster for rwml up and the tests: an in-process KRaft broker and the Apicurio registry,
 * optionally secured.
 */
package dev.rwml.ops.embedded;
