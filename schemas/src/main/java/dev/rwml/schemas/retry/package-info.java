/** The one retry schedule that every client and stage waits by while a dependency is out. */
package dev.rwml.schemas.retry;
