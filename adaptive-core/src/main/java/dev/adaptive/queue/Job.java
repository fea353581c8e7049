package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import dev.adaptive.time.Cancellable;

import java.util.concurrent.CompletableFuture;

/**
 * One accepted task, from submit to its one terminal place: its future. The retry fields are
 * changed only under the queue's lock; the attempts of one job never overlap.
 *
 * @param <R> the result type
 */
final class Job<R> {

    final long index;
    final AsyncTask<R> task;
    final CompletableFuture<R> future = new CompletableFuture<>();
    /** Set before the queue completes {@link #future}, so a completion by anyone else reads as a withdrawal. */
    volatile boolean finishing;

    int attempts;
    int retriesUsed;
    int rateLimitRetriesUsed;

    // A delayed retry: armed (timer set, due at dueNanos) while the queue runs, frozen
    // (timer null, remainingNanos kept) while it does not.
    Cancellable timer;
    Object timerToken;
    long dueNanos;
    long remainingNanos;

    Job(long index, AsyncTask<R> task) {
        this.index = index;
        this.task = task;
    }

    /** @return whether the caller completed or cancelled the future before the queue finished the job */
    boolean withdrawn() {
        return future.isDone() && !finishing;
    }
}
