/**
 * Load shedding for a server: {@link dev.adaptive.guard.ConcurrencyGuard} admits or sheds each
 * incoming request by an inferred concurrency limit ({@link dev.adaptive.guard.GuardGradient}),
 * so that an overloaded service answers at once instead of queueing.
 *
 * <p>Status: public API.
 */
package dev.adaptive.guard;
