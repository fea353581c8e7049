package dev.adaptive.pool;

import java.time.Duration;
import java.util.List;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a run did, taken when it finished (or live, from {@link PoolRun#snapshot()}). Immutable.
 *
 * @param finalConcurrency         the limit when the run ended
 * @param maxConcurrencyReached    the highest limit during the run (the initial one counts)
 * @param congestionEvents         drops the limiter saw: failed attempts and task timeouts
 * @param rateLimitEvents          rate-limited attempts (429, or whatever the classifier calls so)
 * @param outages                  outages the limiter began during the run: runs of failures that
 *                                 held it to one probe at a time (see the limiter's outage rule)
 * @param totalRetries             attempts beyond the first, over all items, both budgets
 * @param totalAttempts            attempts started, over all items
 * @param accepted                 items taken from the input (see {@link ItemPool} for which
 *                                 items count as accepted when a run stops early)
 * @param succeeded                items that ended with a result
 * @param failed                   items that ended with an error
 * @param elapsed                  from the start of the run to its end (or to now, live), in the
 *                                 pool's ticker time
 * @param performanceData          the run as consecutive stretches at one limit, in order:
 *                                 how long the pool ran at each concurrency; at most
 *                                 {@link #MAX_PERFORMANCE_SEGMENTS} entries
 * @param performanceDataTruncated whether stretches after the first
 *                                 {@link #MAX_PERFORMANCE_SEGMENTS} were left out of
 *                                 {@code performanceData} (they still count in
 *                                 {@code timeAtConcurrency})
 * @param timeAtConcurrency        total time spent at each limit, by limit, ascending; never
 *                                 truncated
 * @param callbackFailures         exceptions thrown by the run's result listener and swallowed
 * @param limitFailures            failures the run survived in what it runs on: its limiter's
 *                                 {@link dev.adaptive.LimiterStats#limitFailures()} during the run
 *                                 (its limit algorithm, admission gate, ticker and timers' cancels
 *                                 that threw; a limiter shared with other callers counts theirs
 *                                 too), and the run's own readings of that ticker and calls of
 *                                 that scheduler that threw: as the run started (it is measured
 *                                 from its build) or ended (its {@code elapsed} closes at its
 *                                 start), as it followed a change of the limit (the change is
 *                                 kept: the open stretch goes on at the new limit), as a live
 *                                 {@link PoolRun#snapshot()} was taken (it is as of the run's
 *                                 last reading), and its
 *                                 deadline timer's cancel as it ended (the timer, firing later,
 *                                 finds it ended). The run's own are logged, the
 *                                 first at {@code WARNING}, as the limiter logs its own
 * @param stopCause                why the run ended before its input did; empty if it processed
 *                                 the whole input
 */
public record PoolStats(int finalConcurrency, int maxConcurrencyReached, long congestionEvents, long rateLimitEvents,
                        long outages, long totalRetries, long totalAttempts, long accepted, long succeeded, long failed,
                        Duration elapsed, List<ConcurrencySegment> performanceData, boolean performanceDataTruncated,
                        SortedMap<Integer, Duration> timeAtConcurrency, long callbackFailures,
                        long limitFailures, Optional<PoolAbortedException> stopCause) {

    /**
     * The cap on {@link #performanceData()}: 10,000 stretches. It keeps a streaming run over an
     * unbounded input in bounded memory even when the limit moves often.
     */
    public static final int MAX_PERFORMANCE_SEGMENTS = 10_000;

    /**
     * Copies the collections and checks for nulls; see the class documentation for each field.
     *
     * @param finalConcurrency         the limit when the run ended
     * @param maxConcurrencyReached    the highest limit during the run
     * @param congestionEvents         drops the limiter saw
     * @param rateLimitEvents          rate-limited attempts
     * @param outages                  outages the limiter began during the run
     * @param totalRetries             attempts beyond the first
     * @param totalAttempts            attempts started
     * @param accepted                 items taken from the input
     * @param succeeded                items that ended with a result
     * @param failed                   items that ended with an error
     * @param elapsed                  the run's duration in ticker time
     * @param performanceData          stretches at one limit, in order
     * @param performanceDataTruncated whether stretches were left out
     * @param timeAtConcurrency        total time at each limit
     * @param callbackFailures         listener exceptions swallowed
     * @param limitFailures            failures of the limit and the time source survived
     * @param stopCause                why the run ended early, if it did
     */
    public PoolStats {
        Objects.requireNonNull(elapsed, "elapsed");
        performanceData = List.copyOf(performanceData);
        timeAtConcurrency = Collections.unmodifiableSortedMap(new TreeMap<>(timeAtConcurrency));
        Objects.requireNonNull(stopCause, "stopCause");
    }

    /** @return {@code true} if the run processed its whole input (nothing stopped it) */
    public boolean completed() {
        return stopCause.isEmpty();
    }
}
