package dev.adaptive.benchmarks.model;

import java.time.Duration;

/** What the flaky server answered. Immutable values. */
public sealed interface Response permits Response.Ok, Response.TooManyRequests, Response.ServerError {

    /** A 200. */
    record Ok() implements Response {
    }

    /**
     * A 429 with {@code Retry-After}.
     *
     * @param retryAfter the announced wait
     */
    record TooManyRequests(Duration retryAfter) implements Response {
    }

    /**
     * A 500.
     *
     * @param overCap {@code true} for a refusal past the hard cap, {@code false} for a transient error
     */
    record ServerError(boolean overCap) implements Response {
    }
}
