/**
 * The workloads the simulations and the HTTP benchmark run (scenarios: a server of the flaky
 * model of {@code dev.adaptive.testing} and the client's work), and the failures a call can end
 * with.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.model;
