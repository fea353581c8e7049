package dev.adaptive.vertx.impl;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.vertx.ConcurrencySegment;
import dev.adaptive.vertx.PoolStats;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows the limit during one pool run, for {@link PoolStats}. Limit changes arrive on whatever
 * thread released the lease that moved it, so the few fields are guarded by this object's
 * monitor; it is held for a handful of instructions per change, never per call.
 */
final class RunStats {

    private final Limiter limiter;
    private final LimiterStats atStart;
    private final List<ConcurrencySegment> segments = new ArrayList<>();
    private int current;
    private int max;
    private long since;
    private long retries;

    RunStats(Limiter limiter) {
        this.limiter = limiter;
        this.atStart = limiter.stats();
        this.current = limiter.limit();
        this.max = current;
        this.since = limiter.ticker().nanoTime();
    }

    synchronized void limitChanged(int to) {
        if (to == current) {
            return;
        }
        long now = limiter.ticker().nanoTime();
        segments.add(new ConcurrencySegment(current, Duration.ofNanos(Math.max(0, now - since))));
        current = to;
        max = Math.max(max, to);
        since = now;
    }

    synchronized void retried(int attempts) {
        retries += Math.max(0, attempts - 1);
    }

    synchronized PoolStats finish() {
        long now = limiter.ticker().nanoTime();
        List<ConcurrencySegment> all = new ArrayList<>(segments);
        all.add(new ConcurrencySegment(current, Duration.ofNanos(Math.max(0, now - since))));
        LimiterStats end = limiter.stats();
        return new PoolStats(limiter.limit(), max, end.congestionEvents() - atStart.congestionEvents(),
                end.rateLimitEvents() - atStart.rateLimitEvents(), retries, all);
    }
}
