package dev.adaptive.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * What a server announced of its rate-limit quota with an answer: how many requests it will
 * still accept, and how long until its window renews. Parsed from response headers by
 * {@link RateLimitHeaders}; carried to the limiter in the attempt's
 * {@link dev.adaptive.limit.Outcome#quota()}, which holds dispatch while the remaining quota is no
 * more than what is already in flight, until the reset.
 *
 * @param remaining requests the server will still accept in its current window, {@code >= 0}
 * @param reset     how long until the window renews, {@code >= 0}; {@link Duration#ZERO} when it
 *                  renews now (the announcement then holds nothing)
 */
public record Quota(long remaining, Duration reset) {

    /**
     * Validates.
     *
     * @param remaining requests still accepted
     * @param reset     time to the renewal
     */
    public Quota {
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining must be >= 0: " + remaining);
        }
        Objects.requireNonNull(reset, "reset");
        if (reset.isNegative()) {
            throw new IllegalArgumentException("reset must not be negative: " + reset);
        }
    }
}
