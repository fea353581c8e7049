/**
 * The benchmark harness's entry points: the virtual-time simulations ({@code Simulate}), the
 * same runs in real time ({@code SimulateRealTime}), the HTTP runs of every face against a model
 * server ({@code HttpBench}), and their options. See docs/benchmarks.md.
 *
 * <p>Status: not a library; the project's measurements, not published.
 */
package dev.adaptive.benchmarks;
