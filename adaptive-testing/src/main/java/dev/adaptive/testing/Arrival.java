package dev.adaptive.testing;

/**
 * One request as the flaky model saw it arrive.
 *
 * @param nanos           when it arrived, on the model's clock
 * @param inflight        requests in flight at the server, itself included
 * @param client          the client it came from ({@link Request#ANONYMOUS} when it did not say)
 * @param path            the request's path ({@code ""} when the caller is not HTTP)
 * @param dispatchedNanos when the client says it dispatched it, on the same clock, or -1
 * @param windowStart     the start of the Retry-After window announced to this client that it
 *                        arrived strictly inside, or -1
 * @param seen            the 429 answers its client had read when it sent it, or
 *                        {@link Long#MAX_VALUE} when the client did not say
 */
public record Arrival(long nanos, int inflight, String client, String path, long dispatchedNanos,
                      long windowStart, long seen) {

    /** @return whether it arrived inside a Retry-After window already announced to its client */
    public boolean duringRetryAfter() {
        return windowStart != -1;
    }
}
