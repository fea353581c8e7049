package dev.adaptive.vertx.impl;

import dev.adaptive.RetryBudgetExhaustedException;

/**
 * The failure a caller of the event-bus client, the proxy or the web client sees when a call
 * ends: its last attempt's own, also when the retry budget ended it. The budget refuses a retry
 * with a {@link RetryBudgetExhaustedException} that carries the last failure as its cause;
 * these faces promise the last failure itself (the consumer's {@code ReplyException}, the
 * {@code HttpRateLimitedException} holding the last response), so that a caller still reads a
 * 429 as a 429 and backs off too. {@code LimiterStats.retriesRefused()} counts the refusals.
 */
final class LastFailure {

    private LastFailure() {
    }

    /**
     * @param failure how a call ended
     * @return the last attempt's failure if the retry budget ended the call, the failure otherwise
     */
    static Throwable of(Throwable failure) {
        return failure instanceof RetryBudgetExhaustedException && failure.getCause() != null
                ? failure.getCause() : failure;
    }
}
