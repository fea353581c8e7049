package dev.adaptive.testing;

/**
 * What a {@link FlakyDownstream} saw since its start or its last reset. Immutable.
 *
 * @param arrivals                 requests that reached it
 * @param ok                       200 answers
 * @param tooMany                  429 answers
 * @param serverErrors             5xx answers: over-cap, transient, in an outage, scripted
 * @param peak                     the highest in-flight count, counting refused requests
 * @param rateLimitEpisodes        429s answered outside every window announced before them: how
 *                                 many times a client met the cap and had to wait out a whole
 *                                 Retry-After (a burst of 429s in one window is one episode)
 * @param arrivalsDuringRetryAfter arrivals strictly inside a Retry-After window already
 *                                 announced to their client (the ideal is 0)
 * @param inflight                 requests in flight now; 0 after a clean run
 * @param arrivalsAfterClientKnew  of the arrivals inside an announced window, the ones whose
 *                                 client had read the 429 that opened it when it sent them; -1
 *                                 when no client said what it had read
 */
public record DownstreamStats(long arrivals, long ok, long tooMany, long serverErrors, int peak,
                              long rateLimitEpisodes, long arrivalsDuringRetryAfter, int inflight,
                              long arrivalsAfterClientKnew) {
}
