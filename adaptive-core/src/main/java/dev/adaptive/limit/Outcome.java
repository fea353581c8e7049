package dev.adaptive.limit;

import dev.adaptive.retry.Quota;

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
 * <p>Any outcome may also carry the {@link Quota} the server announced with the answer
 * ({@link #quota()}, {@link #withQuota(Quota)}): a success and a refusal alike can say how much
 * quota is left and when it renews. The limiter then holds dispatch while what is left is no
 * more than what is already in flight, until the renewal. The constants carry none.
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

    /** @return the quota the server announced with this answer, or {@code null} if none */
    Quota quota();

    /**
     * @param quota the quota announced with the answer, or {@code null} for none
     * @return this outcome carrying {@code quota}
     */
    Outcome withQuota(Quota quota);

    /**
     * See {@link Outcome#SUCCESS}.
     *
     * @param quota the announced quota, or {@code null}
     */
    record Success(Quota quota) implements Outcome {
        /** A success without a quota: {@link Outcome#SUCCESS}. */
        public Success() {
            this(null);
        }

        @Override
        public Outcome withQuota(Quota quota) {
            return quota == null ? SUCCESS : new Success(quota);
        }
    }

    /**
     * See {@link Outcome#DROPPED}.
     *
     * @param quota the announced quota, or {@code null}
     */
    record Dropped(Quota quota) implements Outcome {
        /** A drop without a quota: {@link Outcome#DROPPED}. */
        public Dropped() {
            this(null);
        }

        @Override
        public Outcome withQuota(Quota quota) {
            return quota == null ? DROPPED : new Dropped(quota);
        }
    }

    /**
     * See {@link Outcome#IGNORED}.
     *
     * @param quota the announced quota, or {@code null}
     */
    record Ignored(Quota quota) implements Outcome {
        /** An ignored outcome without a quota: {@link Outcome#IGNORED}. */
        public Ignored() {
            this(null);
        }

        @Override
        public Outcome withQuota(Quota quota) {
            return quota == null ? IGNORED : new Ignored(quota);
        }
    }

    /**
     * The server refused for rate; {@code retryAfter} is never negative, {@link Duration#ZERO}
     * when none was announced.
     *
     * @param retryAfter the announced wait
     * @param quota      the announced quota, or {@code null}
     */
    record RateLimited(Duration retryAfter, Quota quota) implements Outcome {
        /**
         * Validates.
         * @param retryAfter the announced wait
         * @param quota      the announced quota, or {@code null}
         */
        public RateLimited {
            Objects.requireNonNull(retryAfter, "retryAfter");
            if (retryAfter.isNegative()) {
                throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
            }
        }

        /**
         * A refusal without a quota.
         * @param retryAfter the announced wait
         */
        public RateLimited(Duration retryAfter) {
            this(retryAfter, null);
        }

        @Override
        public Outcome withQuota(Quota quota) {
            return new RateLimited(retryAfter, quota);
        }
    }
}
