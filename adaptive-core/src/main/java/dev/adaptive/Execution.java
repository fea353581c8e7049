package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.trace.TraceEvent;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One task on its way through an {@link AdaptiveExecutor}: its attempts, retries and result.
 * Thread-safe. The result completes exactly once: with the task's value, with its last
 * failure, or with the reason given to {@link #cancel(Throwable)}.
 *
 * <p>Whoever completes or cancels the {@linkplain #result() result} first (the caller who no
 * longer wants it, say) withdraws the execution: a queued acquisition leaves the limiter's
 * queue and a pending retry is dropped at once. An attempt already running runs on: its lease
 * is released with its own outcome when it ends, and nothing is retried.
 *
 * @param <R> the result type
 */
public final class Execution<R> {

    private final AdaptiveExecutor executor;
    private final LimiterCore core;
    private final long index;
    private final AsyncTask<R> task;
    private final Hooks hooks;
    private final Result result = new Result();
    /** 1 while the result is not complete, plus 1 while an attempt holds its lease; at 0 the execution is over. */
    private final AtomicInteger holds = new AtomicInteger(1);

    // Written only by the thread that settles the current attempt; attempts never overlap.
    private volatile int attempts;
    private int retriesUsed;
    private int rateLimitRetriesUsed;
    private volatile Attempt current;
    private volatile Cancellable retryTimer;
    private volatile CompletableFuture<Lease> pendingAcquire;

    Execution(AdaptiveExecutor executor, long index, AsyncTask<R> task, Hooks hooks) {
        this.executor = executor;
        this.core = executor.limiter().core();
        this.index = index;
        this.task = task;
        this.hooks = hooks;
    }

    /** @return the final result; completing or cancelling it withdraws the execution */
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
        // An attempt that started between the first look and the completion.
        stopCurrent(reason);
        return true;
    }

    private void stopCurrent(Throwable reason) {
        Attempt a = current;
        if (a != null && a.settled.compareAndSet(false, true)) {
            a.stopTimer();
            a.signal.fire(reason);
            LeaseImpl.release(a.lease, Outcome.IGNORED, reason);
            releaseHold();
        }
    }

    /** The result completed, by anyone: nothing more is acquired or retried for it. */
    private void onResultDone() {
        Cancellable t = retryTimer;
        if (t != null) {
            t.cancel();
        }
        CompletableFuture<Lease> p = pendingAcquire;
        if (p != null) {
            p.cancel(false);
        }
        releaseHold();
    }

    /** @return whether an attempt may hold a lease: {@code false} once the execution is over */
    private boolean takeHold() {
        for (;;) {
            int h = holds.get();
            if (h == 0) {
                return false;
            }
            if (holds.compareAndSet(h, h + 1)) {
                return true;
            }
        }
    }

    private void releaseHold() {
        if (holds.decrementAndGet() == 0) {
            try {
                hooks.finished();
            } catch (Throwable brokenRunner) {
                // The execution is over either way; a runner's bug must not unwind whoever ended it.
            }
        }
    }

    void begin(Lease firstLease) {
        if (firstLease != null) {
            runAttempt(firstLease);
        } else {
            acquireAndRun(false);
        }
    }

    /** @param retry whether this is a retry, which queues ahead of fresh acquisitions if the hooks say so */
    private void acquireAndRun(boolean retry) {
        if (result.isDone()) {
            return;
        }
        awaitLease(core.acquire(retry && hooks.retriesFirst()));
    }

    /** Runs the next attempt when {@code f} grants its lease. */
    private void awaitLease(CompletableFuture<Lease> f) {
        pendingAcquire = f;
        // handle, not whenComplete: the stage it returns is dropped, and whenComplete's would
        // wrap a failed acquisition in a new CompletionException, stack trace and all (the
        // bulk of the cost when an abort fails thousands of queued acquisitions at once).
        f.handle((lease, error) -> {
            pendingAcquire = null;
            if (error != null) {
                result.completeExceptionally(OutcomeClassifier.unwrap(error));
            } else if (result.isDone()) {
                unused(lease);
            } else {
                runAttempt(lease);
            }
            return null;
        });
        // The result may have completed between the isDone check and the assignment above.
        if (result.isDone()) {
            f.cancel(false);
        }
    }

    /** Gives back a lease no attempt used: no sample, and a gate hears the start did not happen. */
    private static void unused(Lease lease) {
        if (lease instanceof LeaseImpl own) {
            own.giveBack();
        } else {
            lease.release(Outcome.IGNORED);
        }
    }

    private void runAttempt(Lease lease) {
        if (!takeHold()) {
            unused(lease); // the execution is over: nobody wants this slot
            return;
        }
        int n = ++attempts;
        Attempt a = new Attempt(n, lease);
        current = a;
        if (result.isDone()) {
            // Withdrawn while the lease was on its way.
            if (a.settled.compareAndSet(false, true)) {
                unused(lease);
                releaseHold();
            }
            return;
        }
        if (n == 1) {
            core.firstAttempt(lease.startNanos());
        }
        if (core.tracing()) {
            core.emit(new TraceEvent.TaskStart(lease.startNanos(), index, n, core.limit(), core.inflight()));
        }
        Duration timeout = executor.taskTimeout();
        if (timeout != null) {
            // Armed with the start, not when the task is called: the bound is on the slot held.
            a.timer = core.scheduler().schedule(a::onTimeout, Nanos.of(timeout));
        }
        CompletionStage<R> stage;
        try {
            stage = task.call(a);
            if (stage == null) {
                throw new NullPointerException("task returned a null CompletionStage");
            }
        } catch (Throwable t) {
            // Anything, a StackOverflowError from the task's own recursion included, is this
            // attempt's failure: the task was accepted, so its result must end.
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

    /**
     * @return why the attempt failed, or {@code null} if it succeeded: its error, or for a value
     *         classified as a failure an exception that carries it
     */
    private static Throwable failureOf(Object value, Throwable error, Outcome outcome) {
        if (error != null) {
            return error;
        }
        if (outcome instanceof Outcome.RateLimited r) {
            return new RateLimitedException("result classified as rate-limited: " + value, r.retryAfter());
        }
        return outcome instanceof Outcome.Dropped ? new ClassifiedFailureException(value, outcome) : null;
    }

    /**
     * Decides, before the lease is released, whether the attempt is retried and after what
     * delay, spending the budget: {@link Attempt#retryDelay} stays {@code null} when it is not.
     * The decision is acted on after the release, in {@link #act}.
     */
    private void plan(Attempt a, Throwable cause, Outcome outcome) {
        if (result.isDone() || cause == null || cause instanceof StopPoolException) {
            return; // withdrawn, succeeded, or never retried
        }
        RetryPolicy policy = executor.retryPolicy();
        if (outcome instanceof Outcome.RateLimited r) {
            if (rateLimitRetriesUsed < policy.maxRateLimitRetries() && budgetAllows(a, cause)) {
                rateLimitRetriesUsed++;
                a.rateLimited = true;
                // After a Retry-After the limiter holds the pause; queueing at once is enough,
                // and no jitter ever shortens the wait the server asked for.
                a.retryAfterPause = !r.retryAfter().isZero();
                a.retryDelay = a.retryAfterPause ? Duration.ZERO : policy.delayBeforeRetry(rateLimitRetriesUsed);
            }
            return;
        }
        if (retriesUsed < policy.retries() && policy.shouldRetry(cause, a.number) && budgetAllows(a, cause)) {
            retriesUsed++;
            a.retryDelay = policy.delayBeforeRetry(retriesUsed);
        }
    }

    /**
     * Asks the limiter's retry budget, shared with every other execution on it, for the retry
     * the policy would grant; a refusal becomes the item's end, with its own error.
     */
    private boolean budgetAllows(Attempt a, Throwable cause) {
        long now = core.ticker().nanoTime();
        String refusal = core.refuseRetry(now);
        if (refusal == null) {
            return true;
        }
        a.refusal = new RetryBudgetExhaustedException(refusal + "; item " + index + " ends after attempt " + a.number
                + " with its last failure as the cause", cause);
        if (core.tracing()) {
            core.emit(new TraceEvent.RetryRefused(now, index, a.number, cause));
        }
        return false;
    }

    /** Completes the result, or emits the retry and waits for it; {@code next} is its acquisition if already queued. */
    private void act(Attempt a, R value, Throwable cause, CompletableFuture<Lease> next) {
        if (a.refusal != null) {
            result.completeExceptionally(a.refusal);
            return;
        }
        if (a.retryDelay == null) {
            // Either call does nothing if the result was completed by someone else meanwhile.
            if (cause == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(cause);
            }
            return;
        }
        long now = core.ticker().nanoTime();
        if (a.retryAfterPause) {
            long readyAt = Math.max(now, core.pausedUntilNanos());
            emitRetry(now, a.number, cause, Duration.ofNanos(Nanos.between(now, readyAt)), readyAt, true);
        } else {
            emitRetry(now, a.number, cause, a.retryDelay, Nanos.plus(now, Nanos.of(a.retryDelay)), a.rateLimited);
        }
        if (next != null) {
            pendingAcquire = next; // withdrawable from now on, though its wait has not begun
        }
        retryAfter(Nanos.of(a.retryDelay), next);
    }

    /** @param next the retry's acquisition, already queued, or {@code null} to acquire when the wait is over */
    private void retryAfter(long delayNanos, CompletableFuture<Lease> next) {
        Cancellable t = hooks.delayRetry(() -> {
            retryTimer = null;
            if (next != null) {
                awaitLease(next);
            } else {
                acquireAndRun(true);
            }
        }, delayNanos, core.scheduler());
        if (t != null) {
            retryTimer = t;
            if (result.isDone()) {
                t.cancel();
            }
        }
    }

    private void emitRetry(long now, int attempt, Throwable cause, Duration delay, long readyAt, boolean rateLimited) {
        if (core.tracing()) {
            core.emit(new TraceEvent.Retry(now, index, attempt, cause, delay, readyAt, rateLimited));
        }
    }

    /**
     * What a runner that tracks its executions is told by one of them, and the one wait it may
     * take over: a runner with a lifecycle of its own (a queue that can be paused) freezes a
     * retry's backoff while it holds. Passed to
     * {@link AdaptiveExecutor#start(long, AsyncTask, Lease, Hooks)}. The execution calls these
     * on the thread that made the change, never under a lock of its own; they must be fast and
     * must not block.
     */
    public interface Hooks {

        /** No hooks: retry waits go to the limiter's scheduler. */
        Hooks NONE = new Hooks() {
        };

        /**
         * Waits out the delay before a retry, then runs {@code retry}, which queues the retry for
         * a lease. Called once for every retry the execution decides, after its
         * {@link TraceEvent.Retry}. The default runs {@code retry} at once for a delay of 0 or
         * less, and otherwise schedules it on {@code scheduler}.
         *
         * @param retry      queues the retry; call it once, on any thread, never under a lock
         *                   the engine may need; for a delay of 0, at once (with
         *                   {@link #retriesFirst()} its acquisition is already queued, and
         *                   a grant to it would wait for this call)
         * @param delayNanos the backoff; 0 when the retry may queue at once (after a Retry-After,
         *                   whose pause the limiter holds)
         * @param scheduler  the limiter's scheduler
         * @return what cancels the wait if the execution ends first, or {@code null} if
         *         {@code retry} has already run
         */
        default Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
            if (delayNanos <= 0) {
                retry.run();
                return null;
            }
            return scheduler.schedule(retry, delayNanos);
        }

        /**
         * Whether a retry queues for its lease ahead of every acquisition queued as a first
         * attempt (though behind retries queued before it): older work first, for a runner
         * whose pending work all waits in the limiter's queue. The default, {@code false},
         * keeps arrival order, which a runner that feeds one item at a time wants: its one
         * queued acquisition is older than any retry.
         *
         * @return whether retries go first
         */
        default boolean retriesFirst() {
            return false;
        }

        /**
         * An attempt that answered or timed out is ending: called after its classification and
         * before its lease is released, so before its slot can go to other work (a runner that
         * stops on a failure holds its dispatch here). Not called for an attempt ended by
         * {@link Execution#cancel(Throwable)}. One that throws is ignored. The default does nothing.
         *
         * @param attempt the attempt
         * @param outcome how it was classified
         * @param failure why it failed, as {@link AdmissionGate#settled} is told; {@code null} for a success
         */
        default void ending(TaskContext attempt, Outcome outcome, Throwable failure) {
        }

        /**
         * The execution is over: its result is complete and no attempt of it holds a lease.
         * Called exactly once. One that throws is ignored. The default does nothing.
         */
        default void finished() {
        }
    }

    /**
     * The result the caller holds: completing or cancelling it, by anyone, withdraws the
     * execution. Every way to complete it goes through {@link #complete} or
     * {@link #completeExceptionally}, whose {@code true} comes once, so the withdrawal runs once.
     */
    private final class Result extends CompletableFuture<R> {

        @Override
        public boolean complete(R value) {
            return ended(super.complete(value));
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            return ended(super.completeExceptionally(ex));
        }

        /** As {@link CompletableFuture#cancel}, which it equals in effect, through the one withdrawal. */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return completeExceptionally(new CancellationException()) || isCancelled();
        }

        private boolean ended(boolean byThisCall) {
            if (byThisCall) {
                onResultDone();
            }
            return byThisCall;
        }
    }

    /** One attempt: its lease, its timeout and its cancellation; settles exactly once. */
    private final class Attempt implements TaskContext {
        final int number;
        final Lease lease;
        final CancellationSignal signal = new CancellationSignal();
        final AtomicBoolean settled = new AtomicBoolean();
        volatile Cancellable timer;
        // The retry decision, made by the thread that settles this attempt (see plan).
        Duration retryDelay;
        boolean rateLimited;
        boolean retryAfterPause;
        /** Set when the retry budget refused the retry the policy would have granted. */
        RetryBudgetExhaustedException refusal;

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
            end(value, error);
        }

        /**
         * The attempt's own failure: whoever settles first wins, so a task that answers after
         * this changes nothing, and one that answered first leaves this timer without effect.
         */
        void onTimeout() {
            if (!settled.compareAndSet(false, true)) {
                return;
            }
            TaskTimeoutException timeout = new TaskTimeoutException(executor.taskTimeout());
            signal.fire(timeout);
            end(null, timeout);
        }

        private void end(R value, Throwable error) {
            try {
                Outcome outcome = classify(value, error);
                Throwable cause = failureOf(value, error, outcome);
                plan(this, cause, outcome);
                try {
                    hooks.ending(this, outcome, cause);
                } catch (Throwable brokenRunner) {
                    // The attempt ends all the same; its lease must still be released below.
                }
                long end = core.ticker().nanoTime();
                CompletableFuture<Lease> next = null;
                if (retryDelay != null && retryDelay.isZero() && hooks.retriesFirst() && lease instanceof LeaseImpl own) {
                    // Queued before the slot is freed, so the freed slot goes to this retry, not to newer work.
                    next = own.releaseAndRequeue(outcome, cause);
                } else {
                    LeaseImpl.release(lease, outcome, cause);
                }
                if (core.tracing()) {
                    core.emit(new TraceEvent.TaskEnd(end, index, number, Math.max(0, end - lease.startNanos()), outcome,
                            error));
                }
                act(this, value, cause, next);
            } finally {
                releaseHold();
            }
        }
    }
}
