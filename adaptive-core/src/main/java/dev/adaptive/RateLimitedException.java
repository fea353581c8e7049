package dev.adaptive;

import dev.adaptive.retry.RetryAfter;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Thrown by a task (or used to fail its future) to say "the server refused for rate": the
 * whole limiter pauses until the Retry-After, and the item is retried on the rate-limit
 * budget without consuming its ordinary retries.
 */
public class RateLimitedException extends AdaptiveException {

    /** The parsed wait, or {@code null} when none was usable; serialized with the exception. */
    private final Duration retryAfter;
    /** The header as received, or {@code null}; serialized with the exception. */
    private final String rawRetryAfter;

    /** @param retryAfter the announced wait; {@code null} or negative if none */
    public RateLimitedException(Duration retryAfter) {
        this("rate limited" + (retryAfter == null ? "" : ", retry after " + retryAfter), retryAfter);
    }

    /**
     * @param message    a description, for example the status line
     * @param retryAfter the announced wait; {@code null} or negative if none
     */
    public RateLimitedException(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter == null || retryAfter.isNegative() ? null : retryAfter;
        this.rawRetryAfter = null;
    }

    /**
     * Parses a raw {@code Retry-After} header with {@link RetryAfter} against the system clock,
     * capped at {@link RetryAfter#DEFAULT_MAX}. Garbage, negative and past values mean "none".
     *
     * @param message       a description
     * @param rawRetryAfter the header value, may be {@code null}
     */
    public RateLimitedException(String message, String rawRetryAfter) {
        this(message, rawRetryAfter, Clock.systemUTC());
    }

    /**
     * Parses as {@link #RateLimitedException(String, String)}, against {@code clock}.
     *
     * @param message       a description
     * @param rawRetryAfter the header value, may be {@code null}
     * @param clock         the wall clock HTTP dates are relative to
     */
    public RateLimitedException(String message, String rawRetryAfter, Clock clock) {
        this(message, rawRetryAfter, clock, RetryAfter.DEFAULT_MAX);
    }

    /**
     * @param message       a description
     * @param rawRetryAfter the header value, may be {@code null}
     * @param clock         the wall clock HTTP dates are relative to
     * @param max           the cap on the parsed wait (a face's {@code maxRetryAfter}), positive
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    public RateLimitedException(String message, String rawRetryAfter, Clock clock, Duration max) {
        super(message);
        this.rawRetryAfter = rawRetryAfter;
        this.retryAfter = RetryAfter.parse(rawRetryAfter, clock, max).orElse(null);
    }

    /** @return the announced wait, if any was given and valid */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** @return the raw header value, if built from one */
    public Optional<String> rawRetryAfter() {
        return Optional.ofNullable(rawRetryAfter);
    }
}
