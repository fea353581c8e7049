package dev.adaptive.guard;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests a {@link ConcurrencyGuard} admitted since a recalibration probe began and that are
 * still in flight: what the probe's limit bounds. The requests admitted before it are not
 * counted here; they drain on their own, so that requests that last (streams, long polls) cannot
 * hold a probe, and the guard with it, at a standstill. Lock-free.
 */
final class ProbeCohort {

    /** The cohort of no probe: before the first probe a guard sees. */
    static final ProbeCohort NONE = new ProbeCohort(-1);

    private final long probe;
    private final AtomicInteger inflight = new AtomicInteger();

    /** @param probe the probes completed before this one: names the probe, numbers only grow */
    ProbeCohort(long probe) {
        this.probe = probe;
    }

    long probe() {
        return probe;
    }

    /**
     * Counts one more request, unless {@code limit} are in flight already; a request counted must
     * {@link #leave()} once.
     *
     * @return whether it was counted
     */
    boolean tryEnter(int limit) {
        for (;;) {
            int n = inflight.get();
            if (n >= limit) {
                return false;
            }
            if (inflight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void leave() {
        inflight.decrementAndGet();
    }

    /** @return the requests counted and not yet left */
    int inflight() {
        return inflight.get();
    }

    @Override
    public String toString() {
        return "ProbeCohort[probe=" + probe + ", inflight=" + inflight.get() + "]";
    }
}
