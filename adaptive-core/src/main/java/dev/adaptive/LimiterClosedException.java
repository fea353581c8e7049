package dev.adaptive;

/**
 * Thrown (or used to fail a future) when the limiter is stopped or aborted and accepts no new acquisition.
 */
public class LimiterClosedException extends AdaptiveException {

    /** @param message what was refused and why */
    public LimiterClosedException(String message) {
        super(message);
    }
}
