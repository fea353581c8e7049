package dev.adaptive.pool;

import dev.adaptive.LimitChangeListener;
import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Follows a run's limit: turns its changes into {@link ConcurrencySegment}s and keeps the
 * highest. Thread-safe: limit changes arrive on
 * whichever thread folded the sample, so every method takes the monitor; changes are rare next
 * to attempts, so the monitor is not on the hot path.
 */
final class PerformanceRecorder implements LimitChangeListener {

    private final Ticker ticker;
    private final CallbackFailures tickerFailures;
    private final List<ConcurrencySegment> segments = new ArrayList<>();
    private final TreeMap<Integer, Long> totals = new TreeMap<>();
    private boolean truncated;
    private boolean started;
    private boolean finished;
    private int current;
    private int max;
    private long since;

    /**
     * @param ticker         the run's (its limiter's) ticker
     * @param tickerFailures where a reading of it that throws is counted: the run's
     */
    PerformanceRecorder(Ticker ticker, CallbackFailures tickerFailures) {
        this.ticker = ticker;
        this.tickerFailures = tickerFailures;
    }

    synchronized void start(int limit, long nowNanos) {
        started = true;
        current = limit;
        max = limit;
        since = nowNanos;
    }

    @Override
    public synchronized void onChange(int from, int to) {
        if (!started || finished) {
            return;
        }
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // Without a reading the stretch cannot be closed where the change fell, but the
            // change is kept: the open stretch goes on at the new limit, and the highest limit
            // counts it. Thrown to the limiter, it was lost (a run reported a highest limit below
            // its final one) and counted as a listener's failure.
            tickerFailures.failed(brokenTicker);
            current = to;
            max = Math.max(max, to);
            return;
        }
        close(now);
        current = to;
        max = Math.max(max, to);
        since = now;
    }

    /** Closes the last stretch at {@code nowNanos}; later changes are not recorded. */
    synchronized void finish(long nowNanos) {
        if (started && !finished) {
            close(nowNanos);
            finished = true;
        }
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

    synchronized List<ConcurrencySegment> segments(long nowNanos) {
        List<ConcurrencySegment> out = new ArrayList<>(segments);
        long open = openLength(nowNanos);
        if (open > 0 && out.size() < PoolStats.MAX_PERFORMANCE_SEGMENTS) {
            out.add(new ConcurrencySegment(current, Duration.ofNanos(open)));
        }
        return out;
    }

    synchronized boolean truncated(long nowNanos) {
        return truncated || (openLength(nowNanos) > 0 && segments.size() >= PoolStats.MAX_PERFORMANCE_SEGMENTS);
    }

    synchronized SortedMap<Integer, Duration> totals(long nowNanos) {
        TreeMap<Integer, Duration> out = new TreeMap<>();
        totals.forEach((limit, nanos) -> out.put(limit, Duration.ofNanos(nanos)));
        long open = openLength(nowNanos);
        if (open > 0) {
            out.merge(current, Duration.ofNanos(open), Duration::plus);
        }
        return out;
    }

    /**
     * @param fallback the answer before the run started
     * @return the highest limit since the start (the limit at the start counts)
     */
    synchronized int maxLimit(int fallback) {
        return started ? max : fallback;
    }

    /**
     * @param fallback the answer before the run started
     * @return the latest reading the recorder holds: the start of the open stretch (the run's
     *         start, or the limit's last change read on time); up to it every stretch is closed
     */
    synchronized long lastReading(long fallback) {
        return started ? since : fallback;
    }

    /** The still-open stretch, for live snapshots; 0 once finished. */
    private long openLength(long now) {
        return started && !finished ? Math.max(0, now - since) : 0;
    }
}
