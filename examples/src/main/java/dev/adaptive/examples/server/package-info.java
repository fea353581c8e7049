/**
 * The embedded flaky HTTP server the examples and the demo call.
 *
 * <p>Status: examples, not a library.
 */
package dev.adaptive.examples.server;
