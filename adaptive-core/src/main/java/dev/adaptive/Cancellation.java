package dev.adaptive;

import java.util.concurrent.CompletableFuture;

/**
 * A one-shot cancellation signal for one attempt. Poll it, register a callback, or race its
 * future. Thread-safe; fires at most once.
 */
public interface Cancellation {

    /** @return whether it fired */
    boolean isCancelled();

    /** @return why it fired ({@link TaskTimeoutException}, a stop or cancellation cause), or {@code null} */
    Throwable reason();

    /**
     * Runs {@code callback} when it fires, or at once on this thread if it already has. A callback
     * that throws is ignored.
     *
     * @param callback the callback
     */
    void onCancel(Runnable callback);

    /** @return a future that completes with the reason when it fires; never completes otherwise */
    CompletableFuture<Throwable> asFuture();
}
