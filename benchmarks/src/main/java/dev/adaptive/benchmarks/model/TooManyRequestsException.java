package dev.adaptive.benchmarks.model;

import dev.adaptive.RateLimitedException;

import java.time.Duration;

/**
 * A 429 from the flaky server. A {@link RateLimitedException}, so the engine's default
 * classifier reads its Retry-After; the peers read {@link #retryAfterMillis()}. No stack trace.
 */
public final class TooManyRequestsException extends RateLimitedException {

    private static final long serialVersionUID = 1L;

    private final long retryAfterMillis;

    /** @param retryAfter the announced wait */
    public TooManyRequestsException(Duration retryAfter) {
        super("429, Retry-After " + retryAfter.toMillis() + " ms", retryAfter);
        this.retryAfterMillis = retryAfter.toMillis();
    }

    /** @return the announced wait in milliseconds */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
