package dev.adaptive.queue;

import dev.adaptive.Cancellation;

import java.util.concurrent.CompletableFuture;

/** The queue-wide {@link Cancellation} every task context carries: fires once, on abort. */
final class QueueSignal implements Cancellation {

    private final CompletableFuture<Throwable> fired = new CompletableFuture<>();

    void fire(Throwable reason) {
        fired.complete(reason);
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
                // One task's cleanup failing must not keep the others' from running.
            }
        });
    }

    @Override
    public CompletableFuture<Throwable> asFuture() {
        // A copy, so that a task completing it cannot fire the queue's signal.
        return fired.copy();
    }
}
