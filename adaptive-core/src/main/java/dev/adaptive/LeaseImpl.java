package dev.adaptive;

import dev.adaptive.limit.Outcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A granted slot. The released flag is a plain field flipped by a VarHandle CAS: one fewer object
 * per call. A limiter with an admission gate grants {@link GatedLease}s, which carry the gate's
 * ticket; without one, leases stay this small.
 */
sealed class LeaseImpl implements Lease permits GatedLease {

    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(LeaseImpl.class, "released", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LimiterCore core;
    private final long startNanos;
    private final int inflightAtStart;
    // What the limit's sample says was in flight: ours plus, in a fleet, the others' last reported.
    private final int sampledInflight;
    /** The runs of drops begun when granted: tells the outage rule whether it came after a run's first drop. */
    private final int outageEpoch;
    @SuppressWarnings("unused") // accessed through RELEASED
    private volatile int released;

    LeaseImpl(LimiterCore core, long startNanos, int inflightAtStart) {
        this.core = core;
        this.startNanos = startNanos;
        this.inflightAtStart = inflightAtStart;
        this.sampledInflight = (int) Math.min(Integer.MAX_VALUE, (long) inflightAtStart + core.othersInflight());
        this.outageEpoch = core.outageEpoch();
    }

    /** @return the runs of drops the limiter had begun when it granted this lease */
    int outageEpoch() {
        return outageEpoch;
    }

    /** @return in flight at start as the limit's sample records it: this limiter's and the others' reported */
    int sampledInflight() {
        return sampledInflight;
    }

    @Override
    public boolean release(Outcome outcome) {
        return release(outcome, null);
    }

    /**
     * @param failure the attempt's failure, for an admission gate; {@code null} for a success
     * @return as {@link #release(Outcome)}
     */
    boolean release(Outcome outcome, Throwable failure) {
        Objects.requireNonNull(outcome, "outcome");
        if (!RELEASED.compareAndSet(this, 0, 1)) {
            return false;
        }
        core.onRelease(this, outcome, failure, false);
        return true;
    }

    /**
     * Releases the lease and, before its slot is freed, queues the same work's next attempt
     * ahead of fresh acquisitions, so that the freed slot cannot go to newer work first.
     *
     * @return the next attempt's acquisition; {@code null} if the lease was already released
     */
    CompletableFuture<Lease> releaseAndRequeue(Outcome outcome, Throwable failure) {
        Objects.requireNonNull(outcome, "outcome");
        if (!RELEASED.compareAndSet(this, 0, 1)) {
            return null;
        }
        return core.onRelease(this, outcome, failure, true);
    }

    /**
     * Releases {@code lease} with the attempt's failure when it is the engine's own, which
     * tells an admission gate why the attempt failed; any other lease is released plainly.
     */
    static boolean release(Lease lease, Outcome outcome, Throwable failure) {
        return lease instanceof LeaseImpl own ? own.release(outcome, failure) : lease.release(outcome);
    }

    /** Frees the slot without a sample; for a lease that never reached its caller, or that its caller never used. */
    void giveBack() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            core.unused(this);
        }
    }

    @Override
    public boolean isReleased() {
        return released != 0;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    @Override
    public int inflightAtStart() {
        return inflightAtStart;
    }

    @Override
    public String toString() {
        return "Lease[start=" + startNanos + ", inflightAtStart=" + inflightAtStart + ", released=" + isReleased() + "]";
    }
}
