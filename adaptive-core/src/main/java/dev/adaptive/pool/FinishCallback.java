package dev.adaptive.pool;

import java.util.List;
import java.util.function.Consumer;

/** Runs a user's {@code onFinish} callback without letting it break the run's completion. */
final class FinishCallback {

    private FinishCallback() {
    }

    /**
     * @param callback the callback, or {@code null}
     * @param result   what it receives
     * @param <T>      the item type
     * @param <R>      the result type
     */
    static <T, R> void run(Consumer<? super AdaptiveResult<T, ?>> callback, AdaptiveResult<T, R> result) {
        if (callback == null) {
            return;
        }
        try {
            callback.accept(result);
        } catch (Throwable t) {
            // The run's future still completes with its result; the failure is reported where
            // uncaught failures of this thread go, so that it is not lost silently.
            Thread current = Thread.currentThread();
            try {
                current.getUncaughtExceptionHandler().uncaughtException(current, t);
            } catch (Throwable ignored) {
                // Nothing sensible is left to do.
            }
        }
    }

    /** @return a result with empty lists, for the streaming forms' callback */
    static <T, R> AdaptiveResult<T, R> statsOnly(PoolStats stats) {
        return new AdaptiveResult<>(List.of(), List.of(), stats);
    }
}
