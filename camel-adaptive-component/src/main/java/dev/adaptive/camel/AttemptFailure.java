package dev.adaptive.camel;

import org.apache.camel.Exchange;

/**
 * Carries a failed attempt's exchange through the engine, which deals in throwables: the
 * classifier reads the exchange, and the caller's exchange receives its results, including
 * the original exception (this wrapper never reaches a user). No stack trace: it is a
 * carrier, and the real exception has its own.
 */
final class AttemptFailure extends RuntimeException {

    private final transient Exchange attempt;

    AttemptFailure(Exchange attempt) {
        super("attempt failed: " + attempt.getException(), attempt.getException(), false, false);
        this.attempt = attempt;
    }

    /** @return the attempt's exchange, whose exception is set */
    Exchange attempt() {
        return attempt;
    }
}
