package dev.adaptive;

/**
 * Thrown (or used to fail a future) when a queued acquisition waited longer than the limiter's wait timeout.
 */
public class AcquireTimeoutException extends AdaptiveException {

    /** @param message what was refused and why */
    public AcquireTimeoutException(String message) {
        super(message);
    }
}
