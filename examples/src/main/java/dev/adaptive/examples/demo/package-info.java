/**
 * The side-by-side demo: the same job run by each face and by a fixed concurrency against the
 * flaky server, with a live progress line and an HTML report.
 *
 * <p>Status: examples, not a library.
 */
package dev.adaptive.examples.demo;
