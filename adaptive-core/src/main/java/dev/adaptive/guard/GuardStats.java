package dev.adaptive.guard;

import java.time.Duration;

/**
 * A snapshot of a {@link ConcurrencyGuard}. Fields are read one by one without a global lock,
 * so under load they may be a few requests apart.
 *
 * @param limit          the concurrency admitted now
 * @param inflight       requests admitted and not yet released
 * @param rttNoLoad      the baseline the gradient compares with; {@link Duration#ZERO} until known
 * @param lastRtt        the latency of the last successful request; {@link Duration#ZERO} until one
 * @param admitted       requests admitted so far
 * @param shed           requests turned away so far
 * @param recalibrations recalibration probes completed
 * @param probing        whether a recalibration probe is running
 */
public record GuardStats(int limit, int inflight, Duration rttNoLoad, Duration lastRtt, long admitted, long shed,
                         long recalibrations, boolean probing) {
}
