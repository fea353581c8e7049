package dev.adaptive.trace;

import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Sample;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What the engine did, as a stream of immutable events for logging, charts and tests. Every
 * event carries {@code limiter}, the name of the {@link dev.adaptive.Limiter} it is about (so
 * that one listener can serve several limiters), and {@code timeNanos}, a reading of the
 * engine's {@link dev.adaptive.time.Ticker}.
 *
 * <p>Limiters emit {@link ConcurrencyChange}, {@link Decision}, {@link RatePause},
 * {@link QuotaHold} and {@link Outage}; the
 * runners that execute tasks (pool, Camel, Vert.x) add {@link TaskStart}, {@link TaskEnd} and
 * {@link Retry}. {@code index} is the item's position in the pool's input, or a sequence number
 * for standalone calls.
 */
public sealed interface TraceEvent permits TraceEvent.TaskStart, TraceEvent.TaskEnd,
        TraceEvent.ConcurrencyChange, TraceEvent.Decision, TraceEvent.Retry, TraceEvent.RatePause, TraceEvent.RetryRefused,
        TraceEvent.QuotaHold, TraceEvent.Outage {

    /** @return the name of the limiter the event is about, as {@link dev.adaptive.Limiter#name()} says it */
    String limiter();

    /** @return when it happened, in ticker nanoseconds */
    long timeNanos();

    /**
     * An attempt was admitted and started.
     *
     * @param limiter   the limiter's name
     * @param timeNanos when
     * @param index     the item
     * @param attempt   1 for the first attempt
     * @param limit     the limit at that moment
     * @param inflight  attempts in flight, counting this one
     */
    record TaskStart(String limiter, long timeNanos, long index, int attempt, int limit, int inflight)
            implements TraceEvent {
    }

    /**
     * An attempt finished.
     *
     * @param limiter   the limiter's name
     * @param timeNanos when
     * @param index     the item
     * @param attempt   1 for the first attempt
     * @param rttNanos  how long it took
     * @param outcome   how the classifier saw it
     * @param error     the failure, or {@code null} on success
     */
    record TaskEnd(String limiter, long timeNanos, long index, int attempt, long rttNanos, Outcome outcome,
                   Throwable error)
            implements TraceEvent {
    }

    /**
     * The limit moved.
     *
     * @param limiter   the limiter's name
     * @param timeNanos when
     * @param from      the old limit
     * @param to        the new limit
     * @param reason    what moved it: {@code "sample"}, {@code "rate-limit"}, {@code "coordinator"}
     */
    record ConcurrencyChange(String limiter, long timeNanos, int from, int to, String reason) implements TraceEvent {
        /**
         * Validates.
         * @param limiter the limiter's name
         * @param timeNanos when
         * @param from the old limit
         * @param to the new limit
         * @param reason what moved it: {@code "sample"}, {@code "rate-limit"}, {@code "coordinator"}
         */
        public ConcurrencyChange {
            Objects.requireNonNull(limiter, "limiter");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The algorithm folded one sample.
     *
     * @param limiter   the limiter's name
     * @param timeNanos when
     * @param algorithm the limit's name
     * @param limit     the limit after the fold
     * @param metrics   the algorithm's internals after the fold
     * @param sample    the sample folded
     */
    record Decision(String limiter, long timeNanos, String algorithm, int limit, Map<String, Double> metrics,
                    Sample sample)
            implements TraceEvent {
        /**
         * Copies the metrics.
         * @param limiter the limiter's name
         * @param timeNanos when
         * @param algorithm the limit's name
         * @param limit the limit after the fold
         * @param metrics the algorithm's internals after the fold
         * @param sample the sample folded
         */
        public Decision {
            Objects.requireNonNull(limiter, "limiter");
            metrics = Map.copyOf(metrics);
        }
    }

    /**
     * A failed attempt will be retried. Emitted once the retry's wait is armed, and before the
     * retry's attempt starts; a retry whose wait the scheduler (or the runner) refuses ends its
     * task with its last failure, and has none.
     *
     * @param limiter   the limiter's name
     * @param timeNanos    when the retry was decided
     * @param index        the item
     * @param attempt      the attempt that failed
     * @param cause        why it failed
     * @param delay        the wait before the next attempt may be dispatched
     * @param readyAtNanos when the next attempt may be dispatched
     * @param rateLimited  {@code true} if this retry is on the rate-limit budget
     */
    record Retry(String limiter, long timeNanos, long index, int attempt, Throwable cause, Duration delay,
                 long readyAtNanos, boolean rateLimited) implements TraceEvent {
    }

    /**
     * Dispatch of the whole limiter is paused until {@code untilNanos}. A pause opened with no
     * reading at all ({@link dev.adaptive.Limiter#pauseFor(Duration, long)} with
     * {@link Long#MIN_VALUE}, while the ticker throws) has no known end: its two times are then
     * counted from {@link Long#MIN_VALUE} and mean nothing as readings, and only
     * {@code retryAfter} tells its length ({@link dev.adaptive.Limiter#pausedUntilNanos()} reads
     * {@link Long#MAX_VALUE} meanwhile).
     *
     * @param limiter   the limiter's name
     * @param timeNanos  when
     * @param untilNanos when dispatch resumes
     * @param retryAfter the (capped) wait the server asked for
     */
    record RatePause(String limiter, long timeNanos, long untilNanos, Duration retryAfter) implements TraceEvent {
    }

    /**
     * A failed attempt would have been retried, but the limiter's retry budget refused. A retry
     * after a backoff asks when the backoff is over; refused, it counts as spent and the item
     * waits its next backoff and asks again, one such event per refusal, until its retries are
     * spent: then it ends with a {@link dev.adaptive.RetryBudgetExhaustedException}. A retry
     * without a backoff (a policy without delays) and every rate-limit retry are refused at once, and its
     * item ends.
     *
     * @param limiter   the limiter's name
     * @param timeNanos when the retry was refused
     * @param index     the item
     * @param attempt   the attempt that failed
     * @param cause     why it failed
     */
    record RetryRefused(String limiter, long timeNanos, long index, int attempt, Throwable cause) implements TraceEvent {
    }

    /**
     * What the server announced remains of its quota is no more than what is in flight: no
     * start until the quota renews at {@code untilNanos} (or a later answer announces more).
     *
     * @param limiter    the limiter's name
     * @param timeNanos  when
     * @param remaining  what the server said remains
     * @param untilNanos when the quota renews
     */
    record QuotaHold(String limiter, long timeNanos, long remaining, long untilNanos) implements TraceEvent {
    }

    /**
     * The downstream fails whatever it is sent ({@code started}), or answered again ({@code !started}).
     * An outage begins with a run of errors or timeouts, one of them from a call sent after the
     * first was read, no success or rate limit between them from such a call, and five more of them
     * than successes of older calls; while it lasts the limiter admits one probe at a time, the
     * first {@code nextProbe} after the start and each next one after twice the wait before it, at
     * most the limiter's {@code outageProbe} interval, a first attempt where one waits. The first
     * success or rate limit of a call sent since the run's first error ends it.
     *
     * @param limiter   the limiter's name
     * @param timeNanos when
     * @param started   whether the outage began (or ended)
     * @param drops     errors and timeouts read since the run's first, up to this event
     * @param nextProbe when it began, the wait before the first probe; when it ended, zero
     */
    record Outage(String limiter, long timeNanos, boolean started, int drops, Duration nextProbe) implements TraceEvent {
        /**
         * Validates.
         * @param limiter the limiter's name
         * @param timeNanos when
         * @param started whether the outage began (or ended)
         * @param drops errors and timeouts read since the run's first, up to this event
         * @param nextProbe when it began, the wait before the first probe; when it ended, zero
         */
        public Outage {
            Objects.requireNonNull(limiter, "limiter");
            Objects.requireNonNull(nextProbe, "nextProbe");
        }
    }
}
