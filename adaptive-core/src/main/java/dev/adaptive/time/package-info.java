/**
 * Time, injected: everything in the engine reads time through a
 * {@link dev.adaptive.time.Ticker} and waits through a {@link dev.adaptive.time.Scheduler}
 * (whose timers a {@link dev.adaptive.time.Cancellable} cancels). The defaults are
 * {@code System.nanoTime} and one shared daemon thread; {@link dev.adaptive.time.VirtualTime}
 * is both, for deterministic tests and simulations.
 *
 * <p>Status: public API; {@code Ticker} and {@code Scheduler} are also extension points (the
 * Vert.x face schedules on Vert.x timers).
 */
package dev.adaptive.time;
