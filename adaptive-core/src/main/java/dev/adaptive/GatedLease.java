package dev.adaptive;

/** A lease of a limiter with an {@link AdmissionGate}: it carries the ticket the gate gave its start. */
final class GatedLease extends LeaseImpl {

    /**
     * What {@link AdmissionGate#started(Lease)} returned; written before the lease is handed out,
     * and volatile because a caller may hand the lease to another thread by any means.
     */
    volatile Object ticket;

    GatedLease(LimiterCore core, long startNanos, int inflightAtStart) {
        super(core, startNanos, inflightAtStart);
    }
}
