package dev.adaptive.limit;

import java.time.Duration;
import java.util.Objects;

/**
 * How one attempt ended, as far as capacity is concerned. This is the signal a
 * {@link dev.adaptive.limit.Limit} learns from; see the signal contract in the module docs.
 *
 * <ul>
 *   <li>{@link #SUCCESS}: an RTT sample; the limit may grow.</li>
 *   <li>{@link #DROPPED}: an error or a timeout; a congestion event, the limit shrinks.</li>
 *   <li>{@link RateLimited}: the server said "too many" (429, or 503 with Retry-After);
 *       the limit shrinks and, if {@link RateLimited#retryAfter()} is positive, dispatch of
 *       the whole limiter pauses until then.</li>
 *   <li>{@link #IGNORED}: not about capacity (a 404, a validation error); no sample.</li>
 * </ul>
 *
 * Immutable values.
 */
public sealed interface Outcome permits Outcome.Success, Outcome.Dropped, Outcome.RateLimited, Outcome.Ignored {

    /** The attempt succeeded. */
    Outcome SUCCESS = new Success();
    /** The attempt failed or timed out in a way that signals congestion. */
    Outcome DROPPED = new Dropped();
    /** The attempt says nothing about capacity. */
    Outcome IGNORED = new Ignored();

    /**
     * @param retryAfter how long the server asked us to wait; {@code null}, zero or negative
     *                   means "no wait announced"
     * @return a rate-limited outcome
     */
    static RateLimited rateLimited(Duration retryAfter) {
        return new RateLimited(retryAfter == null || retryAfter.isNegative() ? Duration.ZERO : retryAfter);
    }

    /** See {@link Outcome#SUCCESS}. */
    record Success() implements Outcome {
    }

    /** See {@link Outcome#DROPPED}. */
    record Dropped() implements Outcome {
    }

    /** See {@link Outcome#IGNORED}. */
    record Ignored() implements Outcome {
    }

    /**
     * The server refused for rate; {@code retryAfter} is never negative, {@link Duration#ZERO}
     * when none was announced.
     *
     * @param retryAfter the announced wait
     */
    record RateLimited(Duration retryAfter) implements Outcome {
        /**
         * Validates.
         * @param retryAfter the announced wait
         */
        public RateLimited {
            Objects.requireNonNull(retryAfter, "retryAfter");
            if (retryAfter.isNegative()) {
                throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
            }
        }
    }
}
