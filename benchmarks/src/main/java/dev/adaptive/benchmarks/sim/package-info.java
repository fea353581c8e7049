/**
 * The simulator: every policy (Adaptive and the peers) over the same scenarios, in virtual time
 * or in real time, one adapter per policy.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.sim;
