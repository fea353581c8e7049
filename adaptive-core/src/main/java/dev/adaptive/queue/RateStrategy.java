package dev.adaptive.queue;

/**
 * The policy that moves a {@link ThrottledQueue}'s rate: a pure function from one window's
 * {@link RateObservation} to a {@link RateDecision}. No clock, no state, no I/O: the queue owns
 * those, so a strategy is trivially testable and may be shared between queues.
 *
 * <p>Built-ins: {@link #linear()} (the default) and {@link #aimd(int, double)}. Both hold the
 * rate on a window with some but not too many errors, or with nothing settled.
 *
 * <p><b>Failure.</b> A strategy that throws (anything, an {@code Error} such as
 * {@link StackOverflowError} included), or returns {@code null} (the Java form of a
 * garbage answer: a non-integer rate cannot be expressed), halts the queue: it goes to
 * {@link QueueStatus#STOPPED}, unstarted tasks stay pending, the error is surfaced as a
 * {@link RateStrategyException} in {@link QueueState#haltCause()} and by
 * {@link ThrottledQueue#awaitIdle()}. A rate outside [minRate, maxRate] is not an error: it is
 * bounded.
 *
 * <p>Implementations must be thread-safe; the built-ins are immutable.
 */
@FunctionalInterface
public interface RateStrategy {

    /**
     * @param observation the window that just ended
     * @return the decision; never {@code null}
     */
    RateDecision decide(RateObservation observation);

    /**
     * @return the default: one step down (and back off) on too many errors, one step up on a
     *         clean window, hold otherwise
     */
    static RateStrategy linear() {
        return LinearRateStrategy.INSTANCE;
    }

    /** @return {@link #aimd(int, double) aimd(1, 0.5)} */
    static RateStrategy aimd() {
        return new AimdRateStrategy(1, 0.5);
    }

    /**
     * Additive increase, multiplicative decrease.
     *
     * @param increaseBy     added to the rate after a clean window, at least 1
     * @param decreaseFactor the rate is multiplied by it (rounded down) after a window with too
     *                       many errors; in (0, 1)
     * @return the strategy
     * @throws IllegalArgumentException naming the option and its value if one is out of range
     */
    static RateStrategy aimd(int increaseBy, double decreaseFactor) {
        return new AimdRateStrategy(increaseBy, decreaseFactor);
    }
}
