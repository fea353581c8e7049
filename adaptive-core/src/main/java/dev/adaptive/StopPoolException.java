package dev.adaptive;

/**
 * Thrown by a task to stop the whole run: dispatch stops, the item that threw ends as an error
 * with this exception, and every item not yet finished ends as an error too. Never retried.
 */
public class StopPoolException extends AdaptiveException {

    /** @param message why the run stops */
    public StopPoolException(String message) {
        super(message);
    }

    /**
     * @param message why the run stops
     * @param cause   the underlying failure
     */
    public StopPoolException(String message, Throwable cause) {
        super(message, cause);
    }
}
