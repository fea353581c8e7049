package dev.adaptive.queue;

import dev.adaptive.Cancellation;

import java.util.concurrent.CompletableFuture;

/**
 * The {@link Cancellation} one attempt's task context carries: fires once, when the attempt
 * runs past the task timeout or when the queue aborts while it runs. One per attempt, so a
 * timeout cancels only the attempt that hung, and callbacks registered by a finished attempt
 * are dropped with it instead of piling up on a queue-wide signal.
 */
final class AttemptSignal implements Cancellation {

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
                // A task's cleanup failing must not keep the queue from settling the attempt.
            }
        });
    }

    @Override
    public CompletableFuture<Throwable> asFuture() {
        // A copy, so that a task completing it cannot fire the attempt's signal.
        return fired.copy();
    }
}
