/**
 * Every topic declared once, with its key and value serdes and settings, and the admin that ensures
 * and verifies them.
 */
package dev.rwml.schemas.topics;
