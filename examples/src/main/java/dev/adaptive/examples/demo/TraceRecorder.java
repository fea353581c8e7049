package dev.adaptive.examples.demo;

import dev.adaptive.limit.Outcome;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps every trace event of one run, for the charts, and live counts for the progress line:
 * items done, 429s seen, the current concurrency limit and the attempts in flight.
 * Thread-safe: engines call it from any thread.
 */
public final class TraceRecorder implements TraceListener {

    private final Ticker ticker;
    private final int initialLimit;
    private volatile long startNanos;
    private volatile boolean begun;
    private final AtomicLong lastDoneNanos = new AtomicLong();
    private final ConcurrentLinkedQueue<TraceEvent> events = new ConcurrentLinkedQueue<>();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicInteger limit = new AtomicInteger();
    private final AtomicInteger inflight = new AtomicInteger();

    /**
     * @param ticker the clock the engines stamp their events with
     * @param initialLimit the concurrency the run starts at
     */
    public TraceRecorder(Ticker ticker, int initialLimit) {
        this.ticker = ticker;
        this.initialLimit = initialLimit;
        this.startNanos = ticker.nanoTime();
        this.lastDoneNanos.set(startNanos);
        this.limit.set(initialLimit);
    }

    /**
     * Starts the run's clock, right before the first item is sent: starting a framework and
     * warming up its HTTP stack is not part of the job.
     */
    public void begin() {
        startNanos = ticker.nanoTime();
        lastDoneNanos.set(startNanos);
        begun = true;
        // The engines report changes only; the chart needs the starting point too.
        events.add(new TraceEvent.ConcurrencyChange("run", startNanos, 0, initialLimit, "start"));
    }

    /** @return whether {@link #begin()} was called */
    public boolean begun() {
        return begun;
    }

    /** @return from {@link #begin()} to the last item done, in nanoseconds */
    public long wallNanos() {
        return lastDoneNanos.get() - startNanos;
    }

    @Override
    public void onEvent(TraceEvent event) {
        events.add(event);
        if (event instanceof TraceEvent.TaskStart) {
            inflight.incrementAndGet();
        } else if (event instanceof TraceEvent.TaskEnd end) {
            inflight.decrementAndGet();
            if (end.outcome() instanceof Outcome.RateLimited) {
                rateLimited.incrementAndGet();
            }
        } else if (event instanceof TraceEvent.ConcurrencyChange change) {
            limit.set(change.to());
        }
    }

    /** Counts one item as finished, with an answer or an error. */
    public void itemDone() {
        done.incrementAndGet();
        long now = ticker.nanoTime();
        lastDoneNanos.accumulateAndGet(now, (a, b) -> a - b < 0 ? b : a);
    }

    /** @return the clock of this run */
    public Ticker ticker() {
        return ticker;
    }

    /** @return when the run began (see {@link #begin()}), on {@link #ticker()} */
    public long startNanos() {
        return startNanos;
    }

    /** @return items finished so far */
    public long done() {
        return done.get();
    }

    /** @return 429 answers seen so far */
    public long rateLimited() {
        return rateLimited.get();
    }

    /** @return the current concurrency limit */
    public int limit() {
        return limit.get();
    }

    /** @return attempts in flight now */
    public int inflight() {
        return inflight.get();
    }

    /** @return a copy of the events so far, in the order they were received */
    public List<TraceEvent> events() {
        return new ArrayList<>(events);
    }
}
