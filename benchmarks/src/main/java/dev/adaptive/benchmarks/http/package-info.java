/**
 * The HTTP benchmark: one adapter per face and peer ({@code HttpFace}) driven against the
 * model server on loopback.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.http;
