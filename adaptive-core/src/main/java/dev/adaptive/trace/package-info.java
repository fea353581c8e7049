/**
 * What the engine did, as values: {@link dev.adaptive.trace.TraceEvent} is a sealed family of
 * records (task start and end, concurrency changes, the algorithm's decisions, retries,
 * Retry-After pauses) that a {@link dev.adaptive.trace.TraceListener} receives.
 *
 * <p>Status: public API.
 */
package dev.adaptive.trace;
