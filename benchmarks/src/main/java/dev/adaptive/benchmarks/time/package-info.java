/**
 * Adapters from the engine's virtual time to the executors the peers expect.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.time;
