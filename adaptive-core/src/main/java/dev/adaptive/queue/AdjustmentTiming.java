package dev.adaptive.queue;

/**
 * When a {@link ThrottledQueue} asks its {@link RateStrategy} for the next rate.
 */
public enum AdjustmentTiming {
    /**
     * The default: one decision at the end of every interval, on the outcomes that settled
     * during it, whenever they started. Starts go on without waiting for the decision.
     */
    INTERVAL,
    /**
     * One window holds every attempt started during one interval. When the interval ends, no
     * new attempt starts until all of them have settled; then exactly one decision is made on
     * exactly those outcomes, and the next start opens the next window. Slower, but every
     * decision sees the full effect of one rate.
     */
    SETTLED
}
