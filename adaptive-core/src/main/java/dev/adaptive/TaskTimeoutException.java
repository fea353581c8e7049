package dev.adaptive;

import java.time.Duration;

/** An attempt ran longer than its task timeout. Counts as a drop and consumes a retry. */
public class TaskTimeoutException extends AdaptiveException {

    /** @param timeout the timeout that fired */
    public TaskTimeoutException(Duration timeout) {
        super("task timed out after " + timeout);
    }
}
