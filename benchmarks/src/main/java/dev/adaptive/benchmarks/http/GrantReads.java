package dev.adaptive.benchmarks.http;

import dev.adaptive.limit.Outcome;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many 429s a limiter had read (rate-limited attempt ends) when it granted each attempt its
 * slot, for the server's count of arrivals the client could have prevented: the attempt's task
 * may run later (after a hop onto a Vert.x context, or on another of the client's threads), and
 * a 429 its user code has seen is read only once the pool has taken it, which is also when the
 * pause begins. Register it as a trace listener of the limiter or pool; thread-safe.
 */
final class GrantReads implements TraceListener {
    private final AtomicLong read = new AtomicLong();
    private final Map<Long, Long> atGrant = new ConcurrentHashMap<>();
    /** Attempts that asked for their grant's count and found none: a broken measurement. */
    private final AtomicLong missing = new AtomicLong();

    @Override
    public void onEvent(TraceEvent event) {
        if (event instanceof TraceEvent.TaskEnd end && end.outcome() instanceof Outcome.RateLimited) {
            read.incrementAndGet();
        } else if (event instanceof TraceEvent.TaskStart start) {
            atGrant.put(key(start.index(), start.attempt()), read.get());
        }
    }

    /**
     * @return the 429s read when the attempt was granted its slot, or -1 (which the server counts
     *         as unknown) if its grant was not seen
     */
    long atGrant(long index, int attempt) {
        Long n = atGrant.remove(key(index, attempt));
        if (n == null) {
            missing.incrementAndGet();
            return -1;
        }
        return n;
    }

    /**
     * Fails if any attempt's grant went unseen: its arrival would count as one the client could
     * not have prevented, and a broken count would hide exactly what it is there to show.
     */
    void checkComplete() {
        if (missing.get() != 0) {
            throw new IllegalStateException(missing.get() + " attempts ran without a grant seen by the trace");
        }
    }

    private static long key(long index, int attempt) {
        return index * 1_000 + attempt;
    }
}
