package dev.adaptive.queue;

/**
 * Told of every rate change a {@link ThrottledQueue} applies, in order, after the change (so
 * {@link ThrottledQueue#state()} already shows it, and its {@code rateIncreases} and
 * {@code rateDecreases} counters count it). Called outside the queue's lock on whichever
 * thread settles the queue's work; must be fast and must not block. One that throws is
 * ignored for that change and counted in {@link QueueState#listenerFailures()}.
 */
@FunctionalInterface
public interface RateChangeListener {

    /**
     * @param from      the old rate
     * @param to        the new rate, different from {@code from}
     * @param timeNanos the ticker reading of the decision
     */
    void onRateChange(int from, int to, long timeNanos);
}
