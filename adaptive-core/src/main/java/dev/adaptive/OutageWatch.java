package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.limit.Outcome;

/**
 * Tells an outage of the downstream from a few failed calls, and paces the probes while it
 * lasts: the limiter's counterpart of a Retry-After pause for a server that fails everything
 * without saying when to come back.
 *
 * <p><b>What counts as an outage.</b> A run of drops (errors and timeouts, not rate limits), at
 * least one of them from a call granted after the run's first drop was read (a <i>fresh</i>
 * call), with no success or rate limit of a fresh call read between them, and at least
 * {@link #MIN_DROPS} more drops than successes and rate limits of older calls. Calls granted
 * together are one look at the server however many of them fail (a burst of transient errors,
 * or of refusals over a cap); a fresh call that fails too says the failure lasts. The answers
 * of calls granted before the first drop was read say what the server was, not what it is: when
 * a dependency breaks, what the server was already serving still succeeds (tail latencies: for
 * a few hundred ms) while everything new fails. Counting those successes as the run's end would
 * restart it each time and send retries into the outage meanwhile; each only outweighs a drop,
 * so a run must outnumber them. A transient error rate does not get there: the older calls in
 * flight mostly succeed, and the next fresh calls succeed and end the run (5 % of 64 calls in
 * flight failing at random began no outage in 20,000 calls; without the weighing it began 9).
 *
 * <p>A server over its cap that refuses the newest calls at once while it still serves the older
 * looks alike until an older call answers: that success, though it ends nothing, makes the next
 * probe due at once, and the probe tells one round trip later. Grant order is an epoch count, not
 * a time: in virtual time, and on a coarse clock, a grant and the drop before it share an instant.
 *
 * <p><b>While it lasts</b> the limiter admits one call at a time, a probe (a first attempt where
 * one waits, but the second probe of an outage a retry where one waits), the first after
 * {@code maxInterval / 8} and each next one after twice the wait before it, at most
 * {@code maxInterval}, counted from the failed probe's answer. The first success or rate
 * limit read from a fresh call (every probe is one) ends it. The limiter asks it before each
 * grant ({@link #admitAt}) and tells it of each end ({@link #settled}).
 *
 * <p>Thread-safe: the state changes under this object's lock; a success while no run of
 * drops is open reads one volatile field and takes no lock.
 */
final class OutageWatch {

    /** Drops more than older calls' successes, at least, before a run can be an outage. */
    static final int MIN_DROPS = 5;

    /** What a {@link #settled} end changed. */
    enum Change {
        /** Nothing the limiter must act on. */
        NONE,
        /** The outage began: dispatch goes through probes from now on. */
        STARTED,
        /** The probe in flight ended without ending the outage: the next is due later. */
        PROBE_OVER,
        /** The outage is over: dispatch as before. */
        ENDED
    }

    private final long maxIntervalNanos;
    /** Drops read since the last answer that was not one; 0 while no run is open. */
    private volatile int runDrops;
    private volatile boolean on;
    // Under the lock:
    /**
     * Counts the runs of drops begun; a lease records it when granted, so one granted before the
     * open run's first drop was read has a smaller one.
     */
    private volatile int epoch;
    /** Whether the open run holds a drop of a call granted after its first drop was read. */
    private boolean confirmed;
    /** Successes and rate limits of calls granted before the open run's first drop was read. */
    private int olderAnswered;
    private Object probe;
    /** Probes started in this outage. */
    private int probes;
    private long intervalNanos;
    private long nextProbeNanos;
    private volatile int lastRunDrops;

    /** @param maxIntervalNanos the most time between two probes; positive */
    OutageWatch(long maxIntervalNanos) {
        this.maxIntervalNanos = maxIntervalNanos;
    }

    /** @return the count of runs begun, for a lease granted now to record */
    int epoch() {
        return epoch;
    }

    /** @return whether an outage is on: every grant goes through {@link #admitAt} */
    boolean on() {
        return on;
    }

    /**
     * @param now the ticker's time
     * @return when the next probe may start, or {@link AdmissionGate#HOLD} while one is in flight
     */
    synchronized long admitAt(long now) {
        if (!on) {
            return now;
        }
        return probe != null ? AdmissionGate.HOLD : nextProbeNanos;
    }

    /**
     * A grant made after {@link #admitAt} allowed it: the probe, if the outage is still on.
     *
     * @param lease the probe's lease
     */
    synchronized void probeStarted(Object lease) {
        if (on && probe == null) {
            probe = lease;
            probes++;
        }
    }

    /**
     * @return whether the next probe should be a retry where one waits: the second of an
     *         outage is, every other a first attempt. Fresh work probes without spending any
     *         item's retries, but a server that fails only first attempts (every first attempt
     *         rejected, every retry served) is not down: one retry tells.
     */
    synchronized boolean retryProbeNext() {
        return probes == 1;
    }

    /**
     * A lease that ended unused (it never reached its caller, or its caller never used it): as
     * {@link #settled} with {@link Outcome#IGNORED}, which says nothing of the server and so
     * needs no time: a probe's place is free again.
     *
     * @param lease the lease
     */
    void unused(Object lease) {
        if (runDrops == 0 && !on) {
            return; // the common case, as in settled
        }
        synchronized (this) {
            if (lease == probe) {
                probe = null;
            }
        }
    }

    /**
     * @param lease      the lease that ended
     * @param leaseEpoch the {@link #epoch()} it was granted in
     * @param outcome    how it ended
     * @param now        the ticker's time
     * @return what changed
     */
    Change settled(Object lease, int leaseEpoch, Outcome outcome, long now) {
        boolean drop = outcome instanceof Outcome.Dropped;
        if (!drop && runDrops == 0 && !on) {
            return Change.NONE; // the common case: a success with no run of drops open
        }
        synchronized (this) {
            // Granted after the open run's first drop was read: an answer about the server since.
            boolean fresh = runDrops > 0 && leaseEpoch == epoch;
            boolean wasProbe = lease == probe;
            if (wasProbe) {
                probe = null;
            }
            if (outcome instanceof Outcome.Success || outcome instanceof Outcome.RateLimited) {
                if (runDrops > 0 && !fresh) {
                    // Sent before the first failure was seen: the server worked then, which does
                    // not say it works now (calls in flight when a dependency breaks still
                    // succeed), but it still completes work (a server over its cap refuses the
                    // newest calls while it serves the older): a probe tells at once.
                    if (on && probe == null) {
                        nextProbeNanos = Math.min(nextProbeNanos, now);
                    }
                    olderAnswered++;
                    return Change.NONE;
                }
                lastRunDrops = runDrops;
                runDrops = 0;
                confirmed = false;
                olderAnswered = 0;
                if (on) {
                    on = false;
                    probe = null;
                    return Change.ENDED;
                }
                return Change.NONE;
            }
            if (!drop) {
                // Ignored (withdrawn, cancelled): says nothing of the server; a probe's slot is free again.
                return wasProbe ? Change.PROBE_OVER : Change.NONE;
            }
            if (runDrops == 0) {
                epoch = epoch + 1; // written under the lock only
            } else if (fresh) {
                confirmed = true;
            }
            runDrops++;
            if (on) {
                if (!wasProbe) {
                    return Change.NONE;
                }
                intervalNanos = Math.min(maxIntervalNanos, 2 * intervalNanos);
                nextProbeNanos = Nanos.plus(now, intervalNanos);
                return Change.PROBE_OVER;
            }
            if (confirmed && runDrops - olderAnswered >= MIN_DROPS) {
                on = true;
                probe = null;
                probes = 0;
                intervalNanos = Math.max(1, maxIntervalNanos / 8);
                nextProbeNanos = Nanos.plus(now, intervalNanos);
                return Change.STARTED;
            }
            return Change.NONE;
        }
    }

    /** @return the drops read in the open run, for the trace */
    int runDrops() {
        return runDrops;
    }

    /** @return the drops of the run that ended last, for the trace */
    int lastRunDrops() {
        return lastRunDrops;
    }

    /** @return how long after {@code now} the next probe is due; 0 if due or none is planned */
    synchronized long nextProbeIn(long now) {
        return on && probe == null ? Math.max(0, nextProbeNanos - now) : 0;
    }
}
