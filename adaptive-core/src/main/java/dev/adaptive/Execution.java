package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Cancellable;
import dev.adaptive.trace.TraceEvent;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One task on its way through an {@link AdaptiveExecutor}: its attempts, retries and result.
 * Thread-safe. The result completes exactly once: with the task's value, with its last
 * failure, or with the reason given to {@link #cancel(Throwable)}.
 *
 * @param <R> the result type
 */
public final class Execution<R> {

    private final AdaptiveExecutor executor;
    private final LimiterCore core;
    private final long index;
    private final AsyncTask<R> task;
    private final CompletableFuture<R> result = new CompletableFuture<>();

    // Written only by the thread that settles the current attempt; attempts never overlap.
    private volatile int attempts;
    private int retriesUsed;
    private int rateLimitRetriesUsed;
    private volatile Attempt current;
    private volatile Cancellable retryTimer;
    private volatile CompletableFuture<Lease> pendingAcquire;

    Execution(AdaptiveExecutor executor, long index, AsyncTask<R> task) {
        this.executor = executor;
        this.core = executorCore(executor);
        this.index = index;
        this.task = task;
    }

    private static LimiterCore executorCore(AdaptiveExecutor executor) {
        return executor.limiter().core();
    }

    /** @return the final result */
    public CompletableFuture<R> result() {
        return result;
    }

    /** @return the item's index */
    public long index() {
        return index;
    }

    /** @return attempts started so far */
    public int attempts() {
        return attempts;
    }

    /**
     * Ends the execution with {@code reason}: a queued acquisition is withdrawn, a pending retry
     * dropped, and a running attempt's {@link Cancellation} fires and its lease is released as
     * {@link Outcome#IGNORED} (a cancellation says nothing about capacity).
     *
     * @param reason the failure the result completes with
     * @return {@code true} if this call ended it
     */
    public boolean cancel(Throwable reason) {
        if (result.isDone()) {
            return false;
        }
        // Free the running attempt's slot before the result completes, so that whoever waits
        // on the result (a pool finishing its run) sees the slot free.
        stopCurrent(reason);
        if (!result.completeExceptionally(reason)) {
            return false;
        }
        Cancellable t = retryTimer;
        if (t != null) {
            t.cancel();
        }
        CompletableFuture<Lease> p = pendingAcquire;
        if (p != null) {
            p.cancel(false);
        }
        // An attempt that started between the first look and the completion.
        stopCurrent(reason);
        return true;
    }

    private void stopCurrent(Throwable reason) {
        Attempt a = current;
        if (a != null && a.settled.compareAndSet(false, true)) {
            a.stopTimer();
            a.signal.fire(reason);
            a.lease.release(Outcome.IGNORED);
        }
    }

    void begin(Lease firstLease) {
        if (firstLease != null) {
            runAttempt(firstLease);
        } else {
            acquireAndRun();
        }
    }

    private void acquireAndRun() {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<Lease> f = executor.limiter().acquire();
        pendingAcquire = f;
        // handle, not whenComplete: the stage it returns is dropped, and whenComplete's would
        // wrap a failed acquisition in a new CompletionException, stack trace and all (the
        // bulk of the cost when an abort fails thousands of queued acquisitions at once).
        f.handle((lease, error) -> {
            pendingAcquire = null;
            if (error != null) {
                result.completeExceptionally(OutcomeClassifier.unwrap(error));
            } else if (result.isDone()) {
                lease.release(Outcome.IGNORED);
            } else {
                runAttempt(lease);
            }
            return null;
        });
        // cancel() may have run between the isDone check and the assignment above.
        if (result.isDone()) {
            f.cancel(false);
        }
    }

    private void runAttempt(Lease lease) {
        int n = ++attempts;
        Attempt a = new Attempt(n, lease);
        current = a;
        if (result.isDone()) {
            // Cancelled while the lease was on its way.
            if (a.settled.compareAndSet(false, true)) {
                lease.release(Outcome.IGNORED);
            }
            return;
        }
        if (core.tracing()) {
            core.emit(new TraceEvent.TaskStart(lease.startNanos(), index, n, core.limit(), core.inflight()));
        }
        Duration timeout = executor.taskTimeout();
        if (timeout != null) {
            a.timer = core.scheduler().schedule(a::onTimeout, Nanos.of(timeout));
        }
        CompletionStage<R> stage;
        try {
            stage = task.call(a);
            if (stage == null) {
                throw new NullPointerException("task returned a null CompletionStage");
            }
        } catch (Throwable t) {
            a.settle(null, t);
            return;
        }
        stage.whenComplete((value, error) -> a.settle(value, error == null ? null : OutcomeClassifier.unwrap(error)));
    }

    private Outcome classify(Object value, Throwable error) {
        Outcome o;
        try {
            o = executor.classifier().classify(value, error);
        } catch (Throwable t) {
            o = null;
        }
        if (o == null) {
            o = OutcomeClassifier.defaults().classify(value, error);
        }
        if (o instanceof Outcome.RateLimited r && !r.retryAfter().isZero()) {
            // The policy's cap applies before the limiter ever sees the wait, so a hostile
            // Retry-After cannot pause the limiter longer than the user allowed.
            Duration capped = executor.retryPolicy().cappedRetryAfter(r.retryAfter());
            if (!capped.equals(r.retryAfter())) {
                o = Outcome.rateLimited(capped);
            }
        }
        return o;
    }

    private void decide(Attempt a, R value, Throwable error, Outcome outcome) {
        if (result.isDone()) {
            return;
        }
        boolean failed = error != null || outcome instanceof Outcome.RateLimited || outcome instanceof Outcome.Dropped;
        if (!failed) {
            result.complete(value);
            return;
        }
        Throwable cause = error != null ? error
                : outcome instanceof Outcome.RateLimited r
                ? new RateLimitedException("result classified as rate-limited: " + value, r.retryAfter())
                : new ClassifiedFailureException(value, outcome);
        if (cause instanceof StopPoolException) {
            result.completeExceptionally(cause);
            return;
        }
        RetryPolicy policy = executor.retryPolicy();
        long now = core.ticker().nanoTime();
        if (outcome instanceof Outcome.RateLimited r) {
            if (rateLimitRetriesUsed >= policy.maxRateLimitRetries()) {
                result.completeExceptionally(cause);
                return;
            }
            rateLimitRetriesUsed++;
            Duration delay;
            long readyAt;
            if (!r.retryAfter().isZero()) {
                // The limiter holds the pause; queueing now is enough, and no jitter ever
                // shortens the wait the server asked for.
                long until = core.pausedUntilNanos();
                readyAt = Math.max(now, until);
                delay = Duration.ofNanos(Nanos.between(now, readyAt));
                emitRetry(now, a.number, cause, delay, readyAt, true);
                acquireAndRun();
            } else {
                delay = policy.delayBeforeRetry(rateLimitRetriesUsed);
                readyAt = Nanos.plus(now, Nanos.of(delay));
                emitRetry(now, a.number, cause, delay, readyAt, true);
                scheduleRetry(delay);
            }
            return;
        }
        if (retriesUsed >= policy.retries() || !policy.shouldRetry(cause, a.number)) {
            result.completeExceptionally(cause);
            return;
        }
        retriesUsed++;
        Duration delay = policy.delayBeforeRetry(retriesUsed);
        emitRetry(now, a.number, cause, delay, Nanos.plus(now, Nanos.of(delay)), false);
        scheduleRetry(delay);
    }

    private void scheduleRetry(Duration delay) {
        long nanos = Nanos.of(delay);
        if (nanos <= 0) {
            acquireAndRun();
            return;
        }
        retryTimer = core.scheduler().schedule(() -> {
            retryTimer = null;
            acquireAndRun();
        }, nanos);
        if (result.isDone()) {
            retryTimer.cancel();
        }
    }

    private void emitRetry(long now, int attempt, Throwable cause, Duration delay, long readyAt, boolean rateLimited) {
        if (core.tracing()) {
            core.emit(new TraceEvent.Retry(now, index, attempt, cause, delay, readyAt, rateLimited));
        }
    }

    /** One attempt: its lease, its timeout and its cancellation; settles exactly once. */
    private final class Attempt implements TaskContext {
        final int number;
        final Lease lease;
        final CancellationSignal signal = new CancellationSignal();
        final AtomicBoolean settled = new AtomicBoolean();
        volatile Cancellable timer;

        Attempt(int number, Lease lease) {
            this.number = number;
            this.lease = lease;
        }

        @Override
        public long index() {
            return index;
        }

        @Override
        public int attempt() {
            return number;
        }

        @Override
        public Cancellation cancellation() {
            return signal;
        }

        void stopTimer() {
            Cancellable t = timer;
            if (t != null) {
                t.cancel();
            }
        }

        void settle(R value, Throwable error) {
            if (!settled.compareAndSet(false, true)) {
                return; // the timeout or a cancellation came first; this late result is ignored
            }
            stopTimer();
            Outcome outcome = classify(value, error);
            long end = core.ticker().nanoTime();
            lease.release(outcome);
            if (core.tracing()) {
                core.emit(new TraceEvent.TaskEnd(end, index, number, Math.max(0, end - lease.startNanos()), outcome, error));
            }
            decide(this, value, error, outcome);
        }

        void onTimeout() {
            if (!settled.compareAndSet(false, true)) {
                return;
            }
            TaskTimeoutException timeout = new TaskTimeoutException(executor.taskTimeout());
            signal.fire(timeout);
            long end = core.ticker().nanoTime();
            lease.release(Outcome.DROPPED);
            if (core.tracing()) {
                core.emit(new TraceEvent.TaskEnd(end, index, number, Math.max(0, end - lease.startNanos()),
                        Outcome.DROPPED, timeout));
            }
            decide(this, null, timeout, Outcome.DROPPED);
        }
    }
}
