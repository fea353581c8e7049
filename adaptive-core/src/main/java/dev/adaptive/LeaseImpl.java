package dev.adaptive;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/** A granted slot. The released flag is a plain field flipped by a VarHandle CAS: one fewer object per call. */
final class LeaseImpl implements Lease {

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
    @SuppressWarnings("unused") // accessed through RELEASED
    private volatile int released;

    LeaseImpl(LimiterCore core, long startNanos, int inflightAtStart) {
        this.core = core;
        this.startNanos = startNanos;
        this.inflightAtStart = inflightAtStart;
    }

    @Override
    public boolean release(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        if (!RELEASED.compareAndSet(this, 0, 1)) {
            return false;
        }
        core.onRelease(this, outcome);
        return true;
    }

    /** Frees the slot without a sample; for a lease that never reached its caller. */
    void giveBack() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            core.giveBack();
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
