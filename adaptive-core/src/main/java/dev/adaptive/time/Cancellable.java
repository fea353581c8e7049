package dev.adaptive.time;

/**
 * A handle on a scheduled task. Thread-safe.
 */
@FunctionalInterface
public interface Cancellable {

    /**
     * Cancels the task if it has not started yet. Calling it again, or after the task ran,
     * does nothing.
     *
     * @return {@code true} if this call prevented the task from running
     */
    boolean cancel();
}
