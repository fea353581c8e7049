package dev.adaptive.examples.server;

/**
 * What a {@link FlakyServer} saw since its last reset. Immutable.
 *
 * @param arrivals                  requests received
 * @param ok                        answered 200
 * @param rateLimited               answered 429
 * @param arrivalsDuringRetryAfter  requests that arrived strictly inside a Retry-After window
 *                                  the server had already announced (ideal: 0)
 * @param peakInflight              the most requests in flight at once
 */
public record ServerCounters(long arrivals, long ok, long rateLimited, long arrivalsDuringRetryAfter,
                             int peakInflight) {
}
