/**
 * JMH benchmarks of the engine's hot paths and of each face against its bare alternative; how
 * to run them: docs/benchmarks.md.
 *
 * <p>Status: not a library; part of the benchmarks.
 */
package dev.adaptive.benchmarks.jmh;
