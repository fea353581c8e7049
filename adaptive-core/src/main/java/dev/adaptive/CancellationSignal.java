package dev.adaptive;

import java.util.concurrent.CompletableFuture;

/**
 * The engine's {@link Cancellation}, one per attempt: a future that fires once. Callbacks registered with {@link #onCancel(Runnable)} run once, on
 * the thread that fires it (at once if it already fired); one that throws does not stop the
 * others.
 *
 * <p>Thread-safe.
 */
final class CancellationSignal implements Cancellation {

    private final CompletableFuture<Throwable> fired = new CompletableFuture<>();

    /** A signal that has not fired. */
    CancellationSignal() {
    }

    /**
     * Fires the signal, unless it already fired.
     *
     * @param reason why; what {@link #reason()} returns from now on
     * @return {@code true} if this call fired it
     */
    boolean fire(Throwable reason) {
        return fired.complete(reason);
    }

    @Override
    public boolean isCancelled() {
        return fired.isDone();
    }

    @Override
    public Throwable reason() {
        return fired.getNow(null);
    }

    @Override
    public void onCancel(Runnable callback) {
        fired.thenRun(() -> {
            try {
                callback.run();
            } catch (Throwable ignored) {
                // A user's cleanup failing must not stop the others or the engine.
            }
        });
    }

    @Override
    public CompletableFuture<Throwable> asFuture() {
        // A copy, so that a caller completing it cannot fire the signal.
        return fired.copy();
    }
}
