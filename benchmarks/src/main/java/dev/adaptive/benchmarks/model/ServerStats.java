package dev.adaptive.benchmarks.model;

/**
 * What a server saw during one run.
 *
 * @param arrivals                  requests that reached it
 * @param ok                        200 answers
 * @param tooMany                   429 answers
 * @param serverErrors              500 answers, over-cap and transient
 * @param peak                      the highest in-flight count, counting refused requests
 * @param rateLimitEpisodes         429s answered outside every window announced before them: how
 *                                  many times the client met the cap and had to wait out a whole
 *                                  Retry-After (a burst of 429s in one window is one episode)
 * @param arrivalsDuringRetryAfter  arrivals strictly inside an announced Retry-After window
 * @param inflight                  requests in flight now; 0 after a clean run
 * @param arrivalsAfterClientKnew   of those arrivals during Retry-After, the ones the client sent
 *                                  after it had read a 429 whose window they fell in; -1 when
 *                                  the client did not say what it had read (the simulations,
 *                                  where a 429 reaches the client the instant it is sent)
 */
public record ServerStats(long arrivals, long ok, long tooMany, long serverErrors, int peak,
                          long rateLimitEpisodes, long arrivalsDuringRetryAfter, int inflight, long arrivalsAfterClientKnew) {
}
