package dev.adaptive.benchmarks.model;

import dev.adaptive.retry.Quota;

import java.time.Duration;

/** What the flaky server answered. Immutable values. */
public sealed interface Response permits Response.Ok, Response.TooManyRequests, Response.ServerError {

    /**
     * A 200.
     *
     * @param quota the quota the server announces with it, or {@code null} if it keeps none
     */
    record Ok(Quota quota) implements Response {
        /** A 200 without a quota. */
        public Ok() {
            this(null);
        }
    }

    /**
     * A 429 with {@code Retry-After}.
     *
     * @param retryAfter the announced wait
     * @param quota      the quota the server announces with it, or {@code null} if it keeps none
     */
    record TooManyRequests(Duration retryAfter, Quota quota) implements Response {
        /** @param retryAfter the announced wait */
        public TooManyRequests(Duration retryAfter) {
            this(retryAfter, null);
        }
    }

    /**
     * A 500.
     *
     * @param overCap {@code true} for a refusal past the hard cap, {@code false} for a transient error
     */
    record ServerError(boolean overCap) implements Response {
    }
}
