package dev.adaptive.queue;

import dev.adaptive.AdaptiveException;

/**
 * The failure of every task an aborted {@link ThrottledQueue} did not finish, of every later
 * submit, and the reason its tasks' {@link dev.adaptive.Cancellation} fires with. Its cause is
 * the {@link dev.adaptive.StopPoolException} that aborted the queue, if one did.
 */
public class QueueAbortedException extends AdaptiveException {

    /**
     * @param message what was refused
     * @param cause   why the queue aborted, or {@code null} for {@link ThrottledQueue#abort()}
     */
    public QueueAbortedException(String message, Throwable cause) {
        super(message, cause);
    }
}
