package dev.adaptive;

/**
 * Thrown (or used to fail a future) when an acquisition or submission is refused because a bounded queue is full.
 */
public class RejectedException extends AdaptiveException {

    /** @param message what was refused and why */
    public RejectedException(String message) {
        super(message);
    }
}
