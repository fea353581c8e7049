/**
 * The model of a downstream server the simulations and the HTTP benchmark call: scenarios,
 * responses, and the failures a call can end with.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.model;
