package dev.adaptive;

/**
 * A snapshot of a {@link Limiter}. Fields are read one by one without a global lock, so under
 * load they may be a few events apart.
 *
 * @param limit            the current limit (after any fleet ceiling)
 * @param inflight         leases granted and not released
 * @param waiting          acquisitions queued
 * @param maxLimitReached  the highest limit so far
 * @param congestionEvents drops folded (errors, timeouts)
 * @param rateLimitEvents  rate-limited outcomes released
 * @param ratePaused       whether a Retry-After pause is open now
 * @param state            the lifecycle state
 * @param listenerFailures exceptions thrown by trace, limit-change or pause listeners (and swallowed)
 * @param limitFailures    folds of the {@link dev.adaptive.limit.Limit} refused because its
 *                         {@code update} threw or returned {@code null}, or the state it
 *                         returned could not say its limit or metrics; the limiter kept the
 *                         state it had; and calls to the {@link AdmissionGate} that threw
 * @param quotaHolds       times a quota the server announced left no more than what was in
 *                         flight, so that dispatch held until its renewal (once per window)
 * @param retriesRefused   retries the {@link dev.adaptive.retry.RetryBudget} refused; each
 *                         ended its item with a {@link RetryBudgetExhaustedException}
 */
public record LimiterStats(int limit, int inflight, int waiting, int maxLimitReached, long congestionEvents,
                           long rateLimitEvents, boolean ratePaused, LimiterState state, long listenerFailures,
                           long limitFailures, long quotaHolds, long retriesRefused) {
}
