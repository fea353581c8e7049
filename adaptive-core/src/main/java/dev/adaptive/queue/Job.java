package dev.adaptive.queue;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.AsyncTask;
import dev.adaptive.spi.Execution;
import dev.adaptive.limit.Outcome;
import dev.adaptive.StopPoolException;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;

import java.util.concurrent.CompletableFuture;

/**
 * One accepted task, from submit to the end of its execution, and what the queue hears from
 * that execution: its retries' waits (which the queue freezes while it holds), a
 * {@link StopPoolException} before its slot is freed, and its end. Its attempts, retries,
 * timeouts and classification are the executor's.
 *
 * @param <R> the result type
 */
final class Job<R> implements ExecutionHooks {

    private final QueueCore queue;
    final long index;
    private final AsyncTask<R> task;
    private volatile Execution<R> execution;
    /** Set by an abort that may come before {@link #start} has published {@link #execution}. */
    private volatile Throwable cancelledWith;
    /** The StopPoolException this job's attempt ended with while its future was live; under the queue's lock. */
    StopPoolException stopCause;

    Job(QueueCore queue, long index, AsyncTask<R> task) {
        this.queue = queue;
        this.index = index;
        this.task = task;
    }

    /** Starts the execution (outside the queue's lock: a grant may call the task at once). */
    CompletableFuture<R> start(AdaptiveExecutor executor) {
        Execution<R> e = executor.start(index, task, null, this);
        execution = e;
        Throwable c = cancelledWith;
        if (c != null) {
            e.cancel(c);
        }
        return e.result();
    }

    /** Ends the job with {@code cause}, whether or not its execution has started yet. */
    void cancel(Throwable cause) {
        cancelledWith = cause;
        Execution<R> e = execution;
        if (e != null) {
            e.cancel(cause);
        }
    }

    /** @return whether the job's future is complete: once the queue knows, only by a withdrawal or an abort */
    boolean resultDone() {
        Execution<R> e = execution;
        return e != null && e.result().isDone();
    }

    @Override
    public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
        return queue.delayRetry(retry, delayNanos, true);
    }

    /** The same retry, refused by the retry budget, waiting again: frozen as any, counted no more. */
    @Override
    public Cancellable delayRefusedRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
        return queue.delayRetry(retry, delayNanos, false);
    }

    @Override
    public boolean retriesFirst() {
        return true; // the queue's pending tasks all wait in its limiter: a retry is older work
    }

    @Override
    public void ending(int attempt, Outcome outcome, Throwable failure) {
        if (failure instanceof StopPoolException stop) {
            queue.stopRequested(this, stop);
        }
    }

    @Override
    public void finished() {
        queue.finished(this);
    }
}
