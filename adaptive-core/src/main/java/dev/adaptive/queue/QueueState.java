package dev.adaptive.queue;

import java.util.OptionalLong;

/**
 * An immutable snapshot of a {@link ThrottledQueue}, taken under its lock: the queue's own
 * fields belong to the same instant. {@code pending}, {@code concurrencyLimit} and a Retry-After
 * end in {@code holdUntilNanos} are its limiter's, read at that instant too; while another
 * thread is granting a start, {@code pending} may already count it gone when {@code active}
 * does not yet count it.
 *
 * <p>Counters are lifetime totals over attempts. Until an abort,
 * {@code started == succeeded + failed + active}; after one, the attempts it abandoned are in
 * {@code started} only (their settlements change no counter). {@code rateIncreases} and
 * {@code rateDecreases} count exactly the calls made to the {@link RateChangeListener}s.
 *
 * @param status           the lifecycle state
 * @param rate             the current rate, in starts per interval
 * @param pending          tasks waiting to start: new ones and retries whose delay is over
 *                         (the acquisitions queued in the queue's limiter)
 * @param active           attempts running
 * @param delayedRetries   retries waiting out their backoff delay (frozen while not running)
 * @param started          attempts started
 * @param succeeded        attempts that succeeded
 * @param failed           attempts that failed (each retry that failed counts again)
 * @param retried          retries scheduled, on either budget
 * @param rateIncreases    applied rate increases
 * @param rateDecreases    applied rate decreases
 * @param concurrencyLimit the bound on active attempts now: {@code concurrency}, lowered by
 *                         the adaptive concurrency limit if one is set;
 *                         {@link Integer#MAX_VALUE} when unbounded
 * @param holdUntilNanos   while a Retry-After pause or a back-off holds dispatch, the ticker
 *                         reading at which it ends
 * @param haltCause        the {@link RateStrategyException} that halted the queue, until a
 *                         restart; {@code null} otherwise
 * @param listenerFailures exceptions thrown by trace and rate-change listeners (swallowed)
 */
public record QueueState(QueueStatus status, int rate, int pending, int active, int delayedRetries,
                         long started, long succeeded, long failed, long retried, long rateIncreases,
                         long rateDecreases, int concurrencyLimit, OptionalLong holdUntilNanos,
                         Throwable haltCause, long listenerFailures) {

    /** @return whether nothing is pending, running or waiting to retry */
    public boolean idle() {
        return pending == 0 && active == 0 && delayedRetries == 0;
    }

    /** @return tasks accepted and not finished: what {@code maxQueueSize} bounds */
    public int unfinished() {
        return pending + active + delayedRetries;
    }
}
