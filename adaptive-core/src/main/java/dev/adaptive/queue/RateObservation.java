package dev.adaptive.queue;

/**
 * What a {@link RateStrategy} sees at the end of one observation window. An immutable value.
 *
 * @param rate              the rate during the window, in starts per interval
 * @param minRate           the queue's lower bound
 * @param maxRate           the queue's upper bound
 * @param started           attempts started in the window (retries included)
 * @param succeeded         attempts that succeeded in the window
 * @param failed            failed attempts that count against the rate (see
 *                          {@link RateOutcomeClassifier})
 * @param uncountedFailures failed attempts the rate classifier let off
 * @param errorsPerInterval the queue's threshold for "too many errors", at least 1
 * @param windowStartNanos  the ticker reading when the window opened
 * @param windowEndNanos    the ticker reading when the decision is made
 */
public record RateObservation(int rate, int minRate, int maxRate, int started, int succeeded, int failed,
                              int uncountedFailures, int errorsPerInterval, long windowStartNanos,
                              long windowEndNanos) {

    /** @return whether {@link #failed()} reached {@link #errorsPerInterval()} */
    public boolean tooManyErrors() {
        return failed >= errorsPerInterval;
    }

    /** @return whether the window saw successes and not one counted failure */
    public boolean clean() {
        return succeeded > 0 && failed == 0;
    }

    /**
     * @param candidate a rate
     * @return {@code candidate} bounded to [{@link #minRate()}, {@link #maxRate()}]
     */
    public int clamp(long candidate) {
        return (int) Math.max(minRate, Math.min(maxRate, candidate));
    }
}
