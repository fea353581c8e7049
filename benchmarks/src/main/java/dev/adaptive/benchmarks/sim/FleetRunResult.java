package dev.adaptive.benchmarks.sim;

/**
 * The figures of one fleet run.
 *
 * @param fleet             the fleet as one run: wall time to its last item, items of every
 *                          client, what the one server saw (its arrivals inside an announced
 *                          window count windows announced to any client)
 * @param clients           K
 * @param meanCeiling       the fleet's ceiling averaged over the run (sampled every 10 ms): the
 *                          global ceiling of a coordinated fleet, the sum of the clients' limits
 *                          otherwise
 * @param meanInflight      requests in flight at the server, averaged the same way
 * @param lastFirstMillis   when the last client sent its first request, ms after the start
 * @param overCeiling       admissions that took the fleet's in flight above the highest global
 *                          ceiling any member held at that instant; -1 for uncoordinated fleets
 */
public record FleetRunResult(RunResult fleet, int clients, double meanCeiling, double meanInflight,
                             double lastFirstMillis, long overCeiling) {
}
