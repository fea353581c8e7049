package dev.adaptive.vertx.impl;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.pool.ConcurrencySegment;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.PoolStoppedException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Counts one pool run for the core's {@link PoolStats}, and follows the limit for its
 * performance data. Limit changes arrive on whatever thread released the lease that moved
 * them, so the fields are guarded by this object's monitor; it is taken a few times per item,
 * never while calling out.
 */
final class RunStats {

    private final Limiter limiter;
    private final LimiterStats atStart;
    private final long startNanos;
    private final List<ConcurrencySegment> segments = new ArrayList<>();
    private final TreeMap<Integer, Long> totals = new TreeMap<>();
    private boolean truncated;
    private int current;
    private int max;
    private long since;
    private long retries;
    private long attempts;
    private long accepted;
    private long succeeded;
    private long failed;
    private long callbackFailures;

    RunStats(Limiter limiter) {
        this.limiter = limiter;
        this.atStart = limiter.stats();
        this.startNanos = limiter.ticker().nanoTime();
        this.current = limiter.limit();
        this.max = current;
        this.since = startNanos;
    }

    synchronized void limitChanged(int to) {
        long now = limiter.ticker().nanoTime();
        close(now);
        current = to;
        max = Math.max(max, to);
        since = now;
    }

    private void close(long now) {
        long length = now - since;
        if (length <= 0) {
            return; // several changes at one instant: only the last level lasted
        }
        totals.merge(current, length, Long::sum);
        if (segments.size() < PoolStats.MAX_PERFORMANCE_SEGMENTS) {
            segments.add(new ConcurrencySegment(current, Duration.ofNanos(length)));
        } else {
            truncated = true;
        }
    }

    synchronized void accepted() {
        accepted++;
    }

    synchronized void settled(boolean success, int attemptCount) {
        attempts += attemptCount;
        retries += Math.max(0, attemptCount - 1);
        if (success) {
            succeeded++;
        } else {
            failed++;
        }
    }

    synchronized void callbackFailed() {
        callbackFailures++;
    }

    synchronized PoolStats finish(PoolStoppedException stopCause) {
        long now = limiter.ticker().nanoTime();
        close(now);
        since = now;
        TreeMap<Integer, Duration> atLimit = new TreeMap<>();
        totals.forEach((limit, nanos) -> atLimit.put(limit, Duration.ofNanos(nanos)));
        LimiterStats end = limiter.stats();
        return new PoolStats(limiter.limit(), max, end.congestionEvents() - atStart.congestionEvents(),
                end.rateLimitEvents() - atStart.rateLimitEvents(), retries, attempts, accepted, succeeded, failed,
                Duration.ofNanos(Math.max(0, now - startNanos)), segments, truncated, atLimit, callbackFailures,
                Optional.ofNullable(stopCause));
    }
}
