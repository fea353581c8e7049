/**
 * Runnable examples, one per way of using the library: the core pool, queue and guard, Camel
 * routes (Java DSL, YAML, Camel Main) and a Vert.x verticle. See docs/examples.md.
 *
 * <p>Status: examples to read and copy, not a library.
 */
package dev.adaptive.examples;
