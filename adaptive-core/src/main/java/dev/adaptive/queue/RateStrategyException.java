package dev.adaptive.queue;

import dev.adaptive.AdaptiveException;

/**
 * Why a {@link ThrottledQueue} halted: its {@link RateStrategy} threw (the cause) or returned
 * no decision. Surfaced in {@link QueueState#haltCause()} and as the failure of
 * {@link ThrottledQueue#awaitIdle()} while the queue stays halted.
 */
public class RateStrategyException extends AdaptiveException {

    /**
     * @param message what the strategy was asked
     * @param cause   what it threw, or {@code null} if it returned no decision
     */
    public RateStrategyException(String message, Throwable cause) {
        super(message, cause);
    }
}
