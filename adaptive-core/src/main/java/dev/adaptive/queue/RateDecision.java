package dev.adaptive.queue;

/**
 * What a {@link RateStrategy} decided. An immutable value. The queue bounds
 * {@code nextRate} to its [minRate, maxRate].
 *
 * @param nextRate      the rate for the next window, in starts per interval
 * @param shouldBackOff whether the window saw too many errors; with the queue's
 *                      {@code backOff} option on, no task starts for one full interval
 *                      (ignored for a window in which nothing started or settled)
 */
public record RateDecision(int nextRate, boolean shouldBackOff) {

    /**
     * @param rate the current rate
     * @return a decision that keeps the rate and does not back off
     */
    public static RateDecision hold(int rate) {
        return new RateDecision(rate, false);
    }
}
