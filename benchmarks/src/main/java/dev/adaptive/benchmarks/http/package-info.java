/**
 * The HTTP benchmark: one adapter per face and peer ({@code HttpFace}) driven against the
 * flaky model's server on loopback ({@code dev.adaptive.testing.FlakyHttpServer}).
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.http;
