package dev.adaptive.guard;

import dev.adaptive.Lease;
import dev.adaptive.limit.Outcome;

/**
 * The answer of {@link ConcurrencyGuard#acquire()}: admitted (serve the request, then release)
 * or not (answer 503 at once). The request's latency runs from the acquire to the first
 * release.
 *
 * <p>Releasing is idempotent and safe from any thread, at any time, even detached from the
 * request (a completion callback, a finally block that also runs on the rejected path): the
 * first release of an admitted lease counts, every other call does nothing. A lease that is
 * never released holds its slot forever.
 *
 * <p>Thread-safe. {@link #close()} releases as a success, for try-with-resources.
 */
public final class GuardLease implements AutoCloseable {

    static final GuardLease REJECTED = new GuardLease(null, null);

    private final Lease lease;
    private final ProbeCohort cohort;

    private GuardLease(Lease lease, ProbeCohort cohort) {
        this.lease = lease;
        this.cohort = cohort;
    }

    /**
     * @param cohort the probe's requests, if the lease was admitted as one of them; {@code null} otherwise
     */
    static GuardLease admitted(Lease lease, ProbeCohort cohort) {
        return new GuardLease(lease, cohort);
    }

    /** @return whether the request may be served */
    public boolean admitted() {
        return lease != null;
    }

    /**
     * Releases as a success: the latency counts as a sample.
     *
     * @return {@code true} if this call released an admitted lease
     */
    public boolean release() {
        return release(false);
    }

    /**
     * @param dropped {@code true} if the request failed in a way that says the server is
     *                overloaded (a timeout, a pool exhausted); it then decreases the limit more
     *                than any slow success does
     * @return {@code true} if this call released an admitted lease
     */
    public boolean release(boolean dropped) {
        return lease != null && ended(lease.release(dropped ? Outcome.DROPPED : Outcome.SUCCESS));
    }

    /**
     * Releases without a sample: for requests whose latency says nothing about load (a request
     * rejected by validation, a client that went away).
     *
     * @return {@code true} if this call released an admitted lease
     */
    public boolean releaseIgnored() {
        return lease != null && ended(lease.release(Outcome.IGNORED));
    }

    /**
     * Leaves the probe's count after the limiter freed the slot, never before: in between the
     * count is one too high, which holds the probe back a moment, where the other order would
     * let one request more than its limit in.
     */
    private boolean ended(boolean first) {
        if (first && cohort != null) {
            cohort.leave();
        }
        return first;
    }

    /** @return whether a release already happened (always {@code false} for a rejected lease) */
    public boolean isReleased() {
        return lease != null && lease.isReleased();
    }

    /** Same as {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return lease == null ? "GuardLease[rejected]" : "GuardLease[admitted, released=" + lease.isReleased() + "]";
    }
}
