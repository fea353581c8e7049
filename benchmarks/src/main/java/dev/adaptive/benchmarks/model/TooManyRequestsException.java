package dev.adaptive.benchmarks.model;

import dev.adaptive.RateLimitedException;

import java.time.Duration;

/**
 * A 429 from the flaky server, with its {@code Retry-After} or without one. A
 * {@link RateLimitedException}, so the engine's default classifier reads its Retry-After; the
 * peers read {@link #retryAfterMillis()}, and fall back to their own backoff when the server
 * announced no wait ({@link #announced()}). No stack trace.
 */
public final class TooManyRequestsException extends RateLimitedException {

    private static final long serialVersionUID = 1L;

    /** The announced wait in milliseconds; -1 when none was announced. */
    private final long retryAfterMillis;

    /** @param retryAfter the announced wait, or {@code null} if the server announced none */
    public TooManyRequestsException(Duration retryAfter) {
        super(retryAfter == null ? "429, no Retry-After" : "429, Retry-After " + retryAfter.toMillis() + " ms",
                retryAfter);
        this.retryAfterMillis = retryAfter == null ? -1 : retryAfter.toMillis();
    }

    /** @return whether the server announced a wait */
    public boolean announced() {
        return retryAfterMillis >= 0;
    }

    /** @return the announced wait in milliseconds, -1 if none was announced */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
