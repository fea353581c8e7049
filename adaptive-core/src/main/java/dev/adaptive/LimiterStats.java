package dev.adaptive;

import dev.adaptive.limit.Outcome;
import java.time.Duration;

/**
 * A snapshot of a {@link Limiter}. Fields are read one by one without a global lock, so under
 * load they may be a few events apart. Counters run from the limiter's creation and never go
 * down, so a metrics system can read them as monotonic counters.
 *
 * @param limit               the current limit (after any fleet ceiling)
 * @param inflight            leases granted and not released
 * @param waiting             acquisitions queued
 * @param maxLimitReached     the highest limit so far
 * @param congestionEvents    drops folded (errors, timeouts): the attempts released as
 *                            {@link Outcome.Dropped}
 * @param rateLimitEvents     rate-limited outcomes released: the attempts released as
 *                            {@link Outcome.RateLimited}
 * @param ratePaused          whether a Retry-After pause is open now
 * @param state               the lifecycle state
 * @param listenerFailures    exceptions thrown by trace, limit-change or pause listeners (and swallowed)
 * @param limitFailures       folds of the {@link dev.adaptive.limit.Limit} refused because its
 *                            {@code update} threw or returned {@code null}, or the state it
 *                            returned could not say its limit or metrics; the limiter kept the
 *                            state it had; calls to the {@link AdmissionGate} that threw; and
 *                            readings of the {@link dev.adaptive.time.Ticker} that threw as the
 *                            limiter granted a slot (the acquisition then failed with it), as a
 *                            lease was released (its sample dropped) or as a Retry-After pause's
 *                            timer fired (the pause ended), as an announced quota's renewal
 *                            fired (its window closed), as a ceiling was set (it applied all
 *                            the same), as an executor's attempt ended or its retry was made
 *                            with a listener for its {@link dev.adaptive.trace.TraceEvent.TaskEnd}
 *                            or {@link dev.adaptive.trace.TraceEvent.Retry} (that event dropped,
 *                            the attempt released and the retry made all the same), as the retry
 *                            budget was asked for an executor's retry (asked all the same, as of
 *                            the failed attempt's start), as a fleet's rate limit was folded
 *                            (that sample dropped), as {@link Limiter#pauseFor(Duration, long)} was called
 *                            (the pause opened all the same) or as the stats were read with a pause open (its whole
 *                            length shown as what remains), and cancels of its timers (a wait
 *                            timeout, a gate's wake-up, an executor attempt's task timeout, a
 *                            runner's wait for a retry) that threw
 * @param successes           attempts released as {@link Outcome.Success}
 * @param ignored             attempts released as {@link Outcome.Ignored}, cancelled ones included
 * @param errorRetries        retries decided after an attempt that failed (not by timeout or
 *                            rate limit), by the runners on this limiter (pool, executor, Camel,
 *                            Vert.x); each counted once its wait is armed: one whose backoff the
 *                            scheduler (or the runner) refused ends its task with its last
 *                            failure and is counted in none of these three
 * @param timeoutRetries      retries decided after an attempt that timed out
 * @param rateLimitRetries    retries decided after a rate-limited attempt (on the rate-limit budget)
 * @param pausesOpened        Retry-After pauses opened while none was open (an extension of an
 *                            open pause is not counted)
 * @param limitIncreases      changes of the effective limit upwards
 * @param limitDecreases      changes of the effective limit downwards
 * @param shed                acquisitions refused at once: a {@link Limiter#tryAcquire()}
 *                            while the limiter is full, a Retry-After pause is open (free
 *                            slots or not) or others are queued first, and an
 *                            {@link Limiter#acquire()} refused with {@link RejectedException}
 * @param remainingPause      how long the open Retry-After pause still holds dispatch;
 *                            {@link Duration#ZERO} when none is open; its whole length if the
 *                            ticker threw when read for it (counted in {@code limitFailures}),
 *                            or while the pause has no known end (see
 *                            {@link Limiter#pausedUntilNanos()})
 * @param lastRetryAfter      the last wait a server asked for (before the limiter's cap), as a
 *                            rate-limited release or {@link Limiter#pauseFor(Duration)} passed
 *                            it; {@link Duration#ZERO} before the first
 * @param classifierFailures  calls of an executor's {@link OutcomeClassifier} that threw; the
 *                            default classification applied (a {@code null} answer asks for it
 *                            and is not counted)
 * @param quotaHolds          times a quota the server announced left no more than what was in
 *                            flight, so that dispatch held until its renewal (once per window)
 * @param retriesRefused      times the {@link dev.adaptive.retry.RetryBudget} refused a retry (a
 *                            refused retry after a backoff asks again after the next one, each
 *                            refusal counted; its item ends with a
 *                            {@link RetryBudgetExhaustedException} once its retries are spent)
 * @param outages             outages the limiter met: runs of errors and timeouts during which it
 *                            admitted one probe at a time (see {@link Limiter.Builder#outageProbe})
 */
public record LimiterStats(int limit, int inflight, int waiting, int maxLimitReached, long congestionEvents,
                           long rateLimitEvents, boolean ratePaused, LimiterState state, long listenerFailures,
                           long limitFailures, long successes, long ignored, long errorRetries,
                           long timeoutRetries, long rateLimitRetries, long pausesOpened, long limitIncreases,
                           long limitDecreases, long shed, Duration remainingPause, Duration lastRetryAfter,
                           long classifierFailures, long quotaHolds, long retriesRefused, long outages) {

    /** @return the retries of every cause */
    public long retries() {
        return errorRetries + timeoutRetries + rateLimitRetries;
    }

    /** @return the attempts released, of every outcome */
    public long attempts() {
        return successes + congestionEvents + rateLimitEvents + ignored;
    }
}
