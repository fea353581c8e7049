package dev.adaptive.queue;

import java.util.OptionalLong;

/**
 * An immutable snapshot of a {@link ThrottledQueue}, taken under its lock: the queue's own
 * fields belong to the same instant. {@code pending}, {@code concurrencyLimit} and a Retry-After
 * end in {@code holdUntilNanos} are its limiter's, read at that instant too; while another
 * thread is granting a start, {@code pending} may already count it gone when {@code active}
 * does not yet count it.
 *
 * <p>Counters are lifetime totals. Until an abort,
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
 * @param retried          retries scheduled, on either budget: each counted once, once its wait
 *                         is armed (or frozen), as the limiter counts its retries and traces
 *                         each {@link dev.adaptive.trace.TraceEvent.Retry}; a retry the retry
 *                         budget refuses at the end of its backoff and that waits another is
 *                         still that one retry (and one it refuses for good, ending its task,
 *                         stays counted); one whose first wait the scheduler refused ends its
 *                         task with its last failure and is not counted
 * @param rateIncreases    applied rate increases
 * @param rateDecreases    applied rate decreases
 * @param concurrencyLimit the bound on active attempts now: {@code concurrency}, lowered by
 *                         the adaptive concurrency limit if one is set;
 *                         {@link Integer#MAX_VALUE} when unbounded
 * @param holdUntilNanos   while a Retry-After pause or a back-off holds dispatch, the ticker
 *                         reading at which it ends (the later of the two); read when the
 *                         ticker threw, the end of each not yet seen to end;
 *                         {@link Long#MAX_VALUE} while the limiter's pause has no known end
 *                         (see {@link dev.adaptive.Limiter#pausedUntilNanos()})
 * @param haltCause        the {@link RateStrategyException} that halted the queue, until a
 *                         restart; {@code null} otherwise
 * @param listenerFailures exceptions thrown by trace and rate-change listeners (swallowed)
 * @param limitFailures    failures the queue survived in what it runs on, named as its
 *                         limiter's: that limiter's {@link dev.adaptive.LimiterStats#limitFailures()}
 *                         (an adaptive {@code concurrencyLimit}'s algorithm, the ticker as a start
 *                         is granted or an attempt released, a pacing wake-up or a window's timer
 *                         at a start that the scheduler refused, its timers' cancels that threw),
 *                         plus the queue's own: a reading of the ticker that threw as an
 *                         observation window's timer fired, or as a {@code SETTLED} window's
 *                         last start went unused (the window was decided at its end), as a retry's
 *                         backoff began (its wait was armed by its delay all the same, and a hold
 *                         freezes its whole delay), or as {@link ThrottledQueue#state()} was read
 *                         (counted in the state it returned), a
 *                         window's timer the scheduler refused as the next window opened (the next
 *                         start opens one), a frozen retry's wait it refused as the queue resumed
 *                         (the retry went at once), and cancels of the window's timer and the
 *                         retries' waits that threw (each timer, firing later, finds nothing to
 *                         do). The queue's own are logged, the first of each kind at
 *                         {@code WARNING}, as the limiter logs its own. What a caller is told
 *                         (a {@code pause()} that throws what the ticker threw) is not counted
 */
public record QueueState(QueueStatus status, int rate, int pending, int active, int delayedRetries,
                         long started, long succeeded, long failed, long retried, long rateIncreases,
                         long rateDecreases, int concurrencyLimit, OptionalLong holdUntilNanos,
                         Throwable haltCause, long listenerFailures, long limitFailures) {

    /** @return whether nothing is pending, running or waiting to retry */
    public boolean idle() {
        return pending == 0 && active == 0 && delayedRetries == 0;
    }

    /** @return tasks accepted and not finished: what {@code maxQueueSize} bounds */
    public int unfinished() {
        return pending + active + delayedRetries;
    }
}
