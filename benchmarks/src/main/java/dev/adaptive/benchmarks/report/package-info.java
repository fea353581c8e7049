/**
 * Results as tables, charts and JSON: statistics over runs, targets, and the files written to
 * benchmarks/results.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.report;
