package dev.adaptive.limit;


import java.util.Objects;

/**
 * One finished attempt, as a {@link Limit} sees it.
 *
 * @param startNanos the {@link dev.adaptive.time.Ticker} reading when the attempt was admitted
 * @param rttNanos   how long it took, never negative
 * @param inflight   the number of attempts in flight when it was admitted, counting itself
 * @param outcome    how it ended
 */
public record Sample(long startNanos, long rttNanos, int inflight, Outcome outcome) {

    /**
     * Validates.
     * @param startNanos the {@link dev.adaptive.time.Ticker} reading when the attempt was admitted
     * @param rttNanos how long it took, never negative
     * @param inflight the number of attempts in flight when it was admitted, counting itself
     * @param outcome how it ended
     */
    public Sample {
        Objects.requireNonNull(outcome, "outcome");
        if (rttNanos < 0) {
            throw new IllegalArgumentException("rttNanos must not be negative: " + rttNanos);
        }
    }

    /** @return {@code true} if the outcome is {@link Outcome#SUCCESS} */
    public boolean isSuccess() {
        return outcome instanceof Outcome.Success;
    }

    /** @return {@code true} if the outcome is a drop or a rate limit: a signal to decrease */
    public boolean isCongestion() {
        return outcome instanceof Outcome.Dropped || outcome instanceof Outcome.RateLimited;
    }
}
