package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.internal.SlotReturn;
import dev.adaptive.internal.UserText;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.spi.OneListenerFuture;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.trace.TraceEvent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

/**
 * The engine's {@link Execution}: one task on its way through an {@link AdaptiveExecutor}.
 * Thread-safe; see {@link Execution} for the contract.
 *
 * @param <R> the result type
 */
final class ExecutionImpl<R> implements Execution<R> {

    private static final VarHandle HOLDS;
    private static final VarHandle SETTLED;
    private static final VarHandle ATTEMPTS;
    private static final VarHandle TAKEN;
    private static final VarHandle ANNOUNCEMENT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HOLDS = lookup.findVarHandle(ExecutionImpl.class, "holds", int.class);
            SETTLED = lookup.findVarHandle(ExecutionImpl.Attempt.class, "settled", int.class);
            ATTEMPTS = lookup.findVarHandle(ExecutionImpl.class, "attempts", int.class);
            TAKEN = lookup.findVarHandle(ExecutionImpl.Retry.class, "taken", int.class);
            ANNOUNCEMENT = lookup.findVarHandle(ExecutionImpl.Retry.class, "announcement", TraceEvent.Retry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AdaptiveExecutor executor;
    private final LimiterCore core;
    private final long index;
    private final AsyncTask<R> task;
    private final ExecutionHooks hooks;
    private final Result result = new Result();
    /** 1 while the result is not complete, plus 1 while an attempt holds its lease; at 0 the execution is over. */
    private volatile int holds; // through HOLDS: one fewer object per execution than an AtomicInteger

    // Written only by the thread that settles the current attempt, or that runs the timer of its
    // retry after it (a refused retry spends one more); attempts and their timers never overlap.
    private volatile int attempts;
    private int retriesUsed;
    private int rateLimitRetriesUsed;
    private volatile Attempt current;
    private volatile Cancellable retryTimer;
    /** The last retry handed to the runner's wait; the execution's end drops it unless it ran. */
    private volatile Retry retry;
    private volatile CompletableFuture<Lease> pendingAcquire;

    ExecutionImpl(AdaptiveExecutor executor, long index, AsyncTask<R> task, ExecutionHooks hooks) {
        this.executor = executor;
        this.core = executor.limiter().core();
        this.index = index;
        this.task = task;
        this.hooks = hooks;
        // A plain store: nobody else can see this execution before begin() hands it on, and a
        // volatile one would cost every execution a fence for nothing.
        HOLDS.set(this, 1);
    }

    @Override
    public CompletableFuture<R> result() {
        return result;
    }

    @Override
    public long index() {
        return index;
    }

    @Override
    public int attempts() {
        return attempts;
    }

    @Override
    public boolean cancel(Throwable reason) {
        Objects.requireNonNull(reason, "reason");
        if (result.isDone()) {
            return false;
        }
        // Free the running attempt's slot before the result completes, so that whoever waits
        // on the result sees the slot free. Not for an attempt that is starting: the thread
        // starting it gives the slot back a moment later, instead of calling the task; the
        // execution is over (hooks.finished(), which a pool run waits for) only after that.
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
        if (a != null && a.cancelStarting()) {
            a.fire(reason); // runAttempt sees it before calling the task, and gives the slot back
            return;
        }
        if (a != null && a.claim()) {
            a.stopTimer();
            a.fire(reason);
            LeaseImpl.release(a.lease, Outcome.IGNORED, reason);
            releaseHold();
        }
    }

    /** The result completed, by anyone: nothing more is acquired or retried for it. */
    private void onResultDone() {
        Cancellable t = retryTimer;
        if (t != null) {
            core.cancelTimer(t);
        }
        Retry r = retry;
        if (r != null) {
            r.drop();
        }
        CompletableFuture<Lease> p = pendingAcquire;
        if (p != null) {
            withdraw(p);
        }
        releaseHold();
    }

    /**
     * Withdraws an acquisition of this execution. A slot the limiter was granting it as the
     * withdrawal landed (counted, not yet handed over) goes back a moment later, on the granting
     * thread: the execution stays open (a hold) until then, so that it is over, and a pool run
     * waiting for it ends, only once no slot of its own is counted.
     */
    private void withdraw(CompletableFuture<Lease> f) {
        boolean held = takeHold();
        f.cancel(false);
        if (held) {
            SlotReturn.whenSlotBack(f, this::releaseHold);
        }
    }

    /** @return whether an attempt may hold a lease: {@code false} once the execution is over */
    private boolean takeHold() {
        for (;;) {
            int h = holds;
            if (h == 0) {
                return false;
            }
            if (HOLDS.compareAndSet(this, h, h + 1)) {
                return true;
            }
        }
    }

    private void releaseHold() {
        if ((int) HOLDS.getAndAdd(this, -1) == 1) {
            try {
                hooks.finished();
            } catch (Throwable brokenRunner) {
                // The execution is over either way; a runner's bug must not unwind whoever ended it.
            }
        }
    }

    void begin(Lease firstLease) {
        // The first attempt's hold, as takeHold() would take it but with a plain store: until an
        // attempt, a lease's future or a timer hands it on, no other thread sees this execution,
        // so nothing can have ended it either.
        HOLDS.set(this, 2);
        if (firstLease != null) {
            runAttempt(firstLease, true);
        } else {
            acquireHeld(false);
        }
    }

    /** @param retry whether this is a retry, which queues ahead of fresh acquisitions if the hooks say so */
    private void acquireAndRun(boolean retry) {
        // The acquisition holds the execution open until its lease runs an attempt or goes
        // back: a cancel that completes the result meanwhile (on another thread) must not make
        // the execution over, and its runner finished, while a slot granted to it still counts.
        if (result.isDone() || !takeHold()) {
            return;
        }
        acquireHeld(retry);
    }

    /** Acquires for the next attempt, the hold for it already taken; the attempt inherits it. */
    private void acquireHeld(boolean retry) {
        LeaseImpl now;
        try {
            now = core.grantNow();
        } catch (Throwable brokenTicker) {
            // The slot is back already: the acquisition fails with it, as a queued one the drain cannot stamp.
            awaitLease(CompletableFuture.failedFuture(brokenTicker), true);
            return;
        }
        if (now != null) {
            // A free slot, the common case: no future to carry the lease.
            runAttempt(now, true);
            return;
        }
        awaitLease(core.queue(retry && retriesFirst(), retry), true);
    }

    /** @return whether the runner puts retries first; hooks that throw (anything) get the default, arrival order */
    private boolean retriesFirst() {
        try {
            return hooks.retriesFirst();
        } catch (Throwable brokenRunner) {
            // Thrown on, it would unwind an attempt's end before its lease is released, or a
            // retry's acquisition after its hold is taken: a slot or the execution lost for good.
            return false;
        }
    }

    /**
     * Runs the next attempt when {@code f} grants its lease.
     *
     * @param held whether the caller took a hold for this acquisition, which the attempt then
     *             inherits, or which goes when the lease is refused or not used
     */
    private void awaitLease(CompletableFuture<Lease> f, boolean held) {
        if (f.isDone() && !f.isCompletedExceptionally()) {
            // Granted at once (a free slot, the common case): run on, without a dependent stage
            // and its completion for each attempt.
            Lease lease = f.join();
            if (result.isDone()) {
                unused(lease);
                if (held) {
                    releaseHold();
                }
            } else {
                runAttempt(lease, held);
            }
            return;
        }
        pendingAcquire = f;
        // handle, not whenComplete: the stage it returns is dropped, and whenComplete's would
        // wrap a failed acquisition in a new CompletionException, stack trace and all (the
        // bulk of the cost when an abort fails thousands of queued acquisitions at once).
        f.handle((lease, error) -> {
            // Ended without its lease (withdrawn, timed out, refused): a slot the limiter was
            // granting it at that instant goes back a moment later, on the granting thread, and
            // the execution stays open until then. An acquisition without a hold of its own (a
            // retry queued ahead) takes one, before pendingAcquire is cleared: a cancel that
            // then reads it cleared has not yet let go of the execution's own hold, and one
            // that read it set withdraws it, with a hold of its own, in onResultDone.
            boolean hold = error != null && (held || takeHold());
            pendingAcquire = null;
            if (error != null) {
                result.completeExceptionally(OutcomeClassifier.unwrap(error));
                if (hold) {
                    SlotReturn.whenSlotBack(f, this::releaseHold);
                }
                return null;
            }
            if (result.isDone()) {
                unused(lease);
            } else {
                runAttempt(lease, held);
                return null;
            }
            if (held) {
                releaseHold();
            }
            return null;
        });
        // The result may have completed between the isDone check and the assignment above.
        if (result.isDone()) {
            withdraw(f);
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

    /** @param held whether a hold is already taken for this lease (its acquisition's), which the attempt takes over */
    private void runAttempt(Lease lease, boolean held) {
        if (!held && !takeHold()) {
            unused(lease); // the execution is over: nobody wants this slot
            return;
        }
        int n = attempts + 1;
        Attempt a = new Attempt(n, lease);
        current = a;
        if (result.isDone()) {
            // Withdrawn while the lease was on its way. A cancel may have seen this attempt as
            // starting (after current was set) and left its slot to this thread: withdrawn()
            // takes it from that state too, where claim() would leave the slot and hold for good.
            if (a.withdrawn()) {
                unused(lease);
                releaseHold();
            }
            return;
        }
        if (n == 1) {
            core.firstAttempt(lease.startNanos());
        }
        if (core.traces(LimiterCore.TASK_START)) {
            core.emit(new TraceEvent.TaskStart(core.name(), lease.startNanos(), index, n, core.limit(), core.inflight()));
        }
        Duration timeout = executor.taskTimeout();
        if (!a.started()) {
            // Cancelled while starting (after the look at the result above, before the task is
            // called): the task is not called, and its slot and hold go back here, not in the
            // cancel, which would otherwise free the slot while the task ran on.
            LeaseImpl.release(lease, Outcome.IGNORED, a.reason());
            releaseHold();
            return;
        }
        // Counted once it really starts: attempts() is the attempts started. Attempts never
        // overlap, so only this thread writes it now. A release store rather than a volatile
        // one: it publishes the count as well to whoever reads it (a runner's headers, the
        // stats), and saves a fence per attempt that nothing needs, no thread writing it and
        // then reading what another wrote.
        ATTEMPTS.setRelease(this, n);
        CompletionStage<R> stage;
        try {
            if (timeout != null) {
                // Armed with the start, not when the task is called: the bound is on the slot held.
                // A scheduler that rejects it fails the attempt, which frees its slot.
                a.timer = core.scheduler().schedule(a::onTimeout, Nanos.of(timeout));
            }
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
        // A stage of the engine's own kind (the Camel face's attempts) takes the listener in a
        // field: no dependent stage per attempt.
        OneListenerFuture.listen(stage, a);
    }

    private Outcome classify(Object value, Throwable error) {
        Outcome o;
        try {
            // null is the classifier's "as the default says" (OutcomeClassifier), not a failure.
            o = executor.classifier().classify(value, error);
        } catch (Throwable t) {
            core.classifierFailures.failed(t);
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
            return new RateLimitedException("result classified as rate-limited: " + UserText.of(value), r.retryAfter());
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
        if (policy.shouldAbort(cause, a.number)) {
            // The policy's veto, asked before either budget (a rate limit's included) and
            // before the retry budget: the attempt is still released with its own outcome.
            return;
        }
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
        if (retriesUsed < policy.retries() && policy.shouldRetry(cause, a.number)) {
            Duration delay = policy.delayBeforeRetry(retriesUsed + 1);
            // A retry after a backoff asks the budget when the backoff is over (see retryWhenAllowed):
            // what the budget should judge is the downstream when the retry would be sent.
            if (!delay.isZero() || budgetAllows(a, cause)) {
                retriesUsed++;
                a.retryDelay = delay;
            }
        }
    }

    /**
     * Asks the limiter's retry budget, shared with every other execution on it, for a retry the
     * policy grants now (a rate-limit retry, or one without a backoff); a refusal becomes the
     * item's end, with its own error.
     */
    private boolean budgetAllows(Attempt a, Throwable cause) {
        String refusal = askBudget(a, cause);
        if (refusal == null) {
            return true;
        }
        a.refusal = new RetryBudgetExhaustedException(refusal + "; item " + index + " ends after attempt " + a.number
                + " with its last failure as the cause", cause);
        return false;
    }

    /**
     * Asks the retry budget, as of now; if the ticker throws (counted), as of the latest reading
     * the execution has, the failed attempt's start, or the newest time the budget has counted
     * in, if later. Its answer holds either way; only a refusal's trace event, which needs the
     * reading, is then dropped. The unlimited budget grants without a reading.
     *
     * @return {@code null} if the budget allows the retry (and counted it), or what it held; a refusal is traced
     */
    private String askBudget(Attempt a, Throwable cause) {
        if (!core.retryBudgeted()) {
            return null; // the unlimited budget: nothing to count, and no reading to make for it
        }
        long now;
        boolean read = true;
        try {
            now = core.ticker().nanoTime();
        } catch (Throwable brokenTicker) {
            // Thrown on, it unwound an attempt's end before its release (the slot kept for good),
            // or the scheduler's thread at the end of a backoff (the retry lost): the result never
            // completed. The budget is asked all the same, with a reading older by the attempt and
            // its backoff: its counts still decide, its window at worst not yet past what it would
            // have forgotten by now. Refused unasked, an item would end, or spend a retry, on a
            // glitch of the clock; granted unasked, a broken clock would lift the cap in an outage.
            core.tickerFailures.failed(brokenTicker);
            now = a.lease.startNanos();
            read = false;
        }
        String refusal = core.refuseRetry(now);
        if (refusal != null && read && core.traces(LimiterCore.RETRY_REFUSED)) {
            core.emit(new TraceEvent.RetryRefused(core.name(), now, index, a.number, cause));
        }
        return refusal;
    }

    /** @return whether the retry {@code a} was granted asks the budget when its backoff is over, not when planned */
    private boolean asksBudgetLater(Attempt a) {
        return !a.rateLimited && !a.retryDelay.isZero();
    }

    /**
     * At the end of a backoff, asks the retry budget for the retry. A refusal does not end the
     * item while its retry policy has retries left: the retry counts as spent, and the item waits
     * its next backoff and asks again, so that an item refused while the budget is spent (just
     * after an outage, say) still succeeds within its retry count once first attempts refill it.
     * Only once its retries are spent does the item end, with a {@link RetryBudgetExhaustedException}.
     *
     * @return whether to send the retry now
     */
    private boolean retryWhenAllowed(Attempt a, Throwable cause) {
        if (result.isDone()) {
            return false;
        }
        String refusal = askBudget(a, cause);
        if (refusal == null) {
            return true;
        }
        RetryPolicy policy = executor.retryPolicy();
        if (retriesUsed < policy.retries()) {
            retriesUsed++;
            // The same retry, refused, waits again: it was traced and counted when decided, and
            // the runner is told so (a queue counts the retries it is handed).
            retryAfter(Nanos.of(policy.delayBeforeRetry(retriesUsed)), null, a, cause, null, true);
        } else {
            result.completeExceptionally(new RetryBudgetExhaustedException(refusal + "; item " + index
                    + " ends after attempt " + a.number + ", its last retries refused, with its last failure as the cause", cause));
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
        // Its event is made as the retry is decided, and emitted once its wait is armed (see
        // retryAfter): one whose wait the scheduler refuses never comes, and is neither traced
        // nor counted.
        TraceEvent.Retry event = core.traces(LimiterCore.RETRY) ? retryEvent(a, cause) : null;
        if (retryAfter(Nanos.of(a.retryDelay), next, asksBudgetLater(a) ? a : null, cause, event, false)) {
            // A retry after a Retry-After is a rate-limited one (plan): a.rateLimited says both.
            core.onRetry(cause, a.rateLimited);
        }
    }

    /**
     * @return the {@link TraceEvent.Retry} of the retry {@code a} was granted, at now; or
     *         {@code null} if the ticker throws (counted): the event is dropped. The ticker is
     *         read for the event alone, so only with a listener for it.
     */
    private TraceEvent.Retry retryEvent(Attempt a, Throwable cause) {
        long now;
        try {
            now = core.ticker().nanoTime();
        } catch (Throwable brokenTicker) {
            // Read after the release, before the wait is armed: thrown on, the retry never came
            // and the result never completed. Dropped rather than stamped with the attempt's
            // start, which would put its readyAtNanos before the retry is due.
            core.tickerFailures.failed(brokenTicker);
            return null;
        }
        Duration delay = a.retryDelay;
        long readyAt;
        if (a.retryAfterPause) {
            // What the pause still holds from now: its whole length if its end is not known.
            long left = core.pauseLeftNanos(now);
            readyAt = Nanos.plus(now, left);
            delay = Duration.ofNanos(left);
        } else {
            readyAt = Nanos.plus(now, Nanos.of(delay));
        }
        return new TraceEvent.Retry(core.name(), now, index, a.number, cause, delay, readyAt, a.rateLimited);
    }

    /**
     * @param next   the retry's acquisition, already queued, or {@code null} to acquire when the wait is over
     * @param asking the failed attempt whose retry asks the budget when the wait is over, or {@code null}
     * @param cause  its failure
     * @param event  the retry's trace event, emitted once the wait is armed; {@code null} for none
     * @param again  whether this is a further wait of a retry the budget refused at the end of its
     *               last ({@link ExecutionHooks#delayRefusedRetry}), not a new retry
     * @return whether the retry is made: its wait armed, or the retry run by the runner already;
     *         {@code false} if the runner refused the wait (the execution then ended)
     */
    private boolean retryAfter(long delayNanos, CompletableFuture<Lease> next, Attempt asking, Throwable cause,
                               TraceEvent.Retry event, boolean again) {
        Retry r = new Retry(next, asking, cause, event);
        // Before the wait: an end from now on drops the retry, and withdraws its acquisition.
        retry = r;
        Cancellable t = null;
        boolean made = true;
        try {
            t = again ? hooks.delayRefusedRetry(r, delayNanos, core.scheduler())
                    : hooks.delayRetry(r, delayNanos, core.scheduler());
        } catch (Throwable rejected) {
            // The wait could not be armed (a scheduler that rejects, shut down say): the retry
            // would never come, so the execution ends now with its last failure. Unless the
            // runner ran it before it threw, it is not made: neither traced nor counted.
            made = r.ran();
            if (cause != rejected) {
                cause.addSuppressed(rejected);
            }
            result.completeExceptionally(cause);
        }
        if (made) {
            r.announce();
        }
        if (t != null) {
            retryTimer = t;
        }
        if (result.isDone()) {
            // Ended before or as the wait was armed (here, or by a cancel on another thread that
            // may have found the retry not yet set): the wait and the retry are not wanted.
            if (t != null) {
                core.cancelTimer(t);
            }
            r.drop();
        }
        return made;
    }

    /**
     * The result the caller holds: completing or cancelling it, by anyone, withdraws the
     * execution. Every way to complete it goes through {@link #complete} or
     * {@link #completeExceptionally}, whose {@code true} comes once, so the withdrawal runs once.
     * A runner listens to it through {@link OneListenerFuture#listen}, with no dependent stage;
     * its listener is told before the withdrawal, as a dependent stage would be.
     */
    private final class Result extends OneListenerFuture<R> {

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

    /**
     * A retry handed to the runner's wait ({@link ExecutionHooks#delayRetry}): runs once, on the
     * runner's first call, or never once the execution has ended first. A retry whose
     * acquisition was queued ahead as its attempt ended may be granted its slot before the
     * runner calls (a runner that keeps the call, or never makes it): the slot then waits for
     * the call, and goes back when the execution ends first, as no attempt will use it.
     */
    private final class Retry implements Runnable {
        /** The acquisition queued ahead as the attempt before ended, or {@code null} to acquire on the call. */
        final CompletableFuture<Lease> queued;
        final Attempt asking;
        final Throwable cause;
        @SuppressWarnings("unused") // through TAKEN: 1 once run, 2 once dropped
        volatile int taken;
        /**
         * Its trace event until emitted, through ANNOUNCEMENT: once its wait is armed, or as it
         * first runs if that comes first (a runner that runs it at once, or a timer that fires
         * before the arming thread is back), so that the event always precedes the retry's
         * attempt. A plain field: written before the retry is handed on, read without a fence
         * where it is {@code null} (no listener), taken by a compare-and-set.
         */
        TraceEvent.Retry announcement;

        Retry(CompletableFuture<Lease> queued, Attempt asking, Throwable cause, TraceEvent.Retry announcement) {
            this.queued = queued;
            this.asking = asking;
            this.cause = cause;
            this.announcement = announcement;
        }

        /** Emits its trace event, if it has one not yet emitted. */
        void announce() {
            TraceEvent.Retry e = announcement;
            if (e != null && ANNOUNCEMENT.compareAndSet(this, e, null)) {
                core.emit(e);
            }
        }

        /** @return whether the runner's call ran it */
        boolean ran() {
            return (int) TAKEN.getVolatile(this) == 1;
        }

        @Override
        public void run() {
            if (!TAKEN.compareAndSet(this, 0, 1)) {
                return; // called again, or after the execution ended: nothing to retry
            }
            announce();
            retryTimer = null;
            if (queued != null) {
                awaitLease(queued, false);
            } else if (asking == null || retryWhenAllowed(asking, cause)) {
                acquireAndRun(true);
            }
        }

        /** The execution ended: unless the runner's call came first, the retry never runs. */
        void drop() {
            if (!TAKEN.compareAndSet(this, 0, 2) || queued == null) {
                return;
            }
            queued.cancel(false);
            if (!queued.isCompletedExceptionally()) {
                unused(queued.join()); // granted before the cancel, and no call will take it now
            }
            // A slot the limiter was granting as the cancel landed goes back a moment later:
            // the execution is over only then.
            withdraw(queued);
        }
    }

    /**
     * One attempt: its lease, its timeout and its cancellation; settles exactly once. It listens
     * to the task's stage itself, one object fewer per attempt than a lambda, and is its own
     * cancellation signal, one fewer again.
     */
    private final class Attempt extends CancellationSignal implements TaskContext, BiConsumer<R, Throwable> {
        final int number;
        final Lease lease;
        @SuppressWarnings("unused") // through SETTLED: 3 starting, 0 running, 2 cancelled while starting, 1 settled
        volatile int settled;
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
            SETTLED.set(this, 3);
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
        public long startNanos() {
            return lease.startNanos();
        }

        @Override
        public Cancellation cancellation() {
            return this;
        }

        /** @return whether this call settled the attempt: true once, for whoever comes first */
        boolean claim() {
            return SETTLED.compareAndSet(this, 0, 1) || SETTLED.compareAndSet(this, 3, 1);
        }

        /** 3 = starting, 0 = running (the task may be called), 2 = cancelled while starting, 1 = settled. */
        boolean cancelStarting() {
            return SETTLED.compareAndSet(this, 3, 2);
        }

        /**
         * For the thread starting the attempt, which found the execution over before calling the
         * task: settles it from starting, or from cancelled while starting, whose slot the
         * cancel left to this thread.
         *
         * @return whether this call settled it, so that its slot and hold go back here
         */
        boolean withdrawn() {
            return SETTLED.compareAndSet(this, 3, 1) || SETTLED.compareAndSet(this, 2, 1);
        }

        /** @return whether the task may be called: {@code false} if a cancel came while starting */
        boolean started() {
            return SETTLED.compareAndSet(this, 3, 0);
        }

        void stopTimer() {
            Cancellable t = timer;
            if (t != null) {
                core.cancelTimer(t);
            }
        }

        /** The task's stage completed. */
        @Override
        public void accept(R value, Throwable error) {
            settle(value, error == null ? null : OutcomeClassifier.unwrap(error));
        }

        void settle(R value, Throwable error) {
            if (!claim()) {
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
            if (!claim()) {
                return;
            }
            TaskTimeoutException timeout = new TaskTimeoutException(executor.taskTimeout());
            fire(timeout);
            end(null, timeout);
        }

        private void end(R value, Throwable error) {
            try {
                Outcome outcome = classify(value, error);
                Throwable cause = failureOf(value, error, outcome);
                plan(this, cause, outcome);
                try {
                    hooks.ending(number, outcome, cause);
                } catch (Throwable brokenRunner) {
                    // The attempt ends all the same; its lease must still be released below.
                }
                // The end is read for the trace alone (the limiter reads its own when released):
                // without a listener for it, a clock read per attempt less.
                boolean traced = core.traces(LimiterCore.TASK_END);
                long end = 0L;
                if (traced) {
                    try {
                        end = core.ticker().nanoTime();
                    } catch (Throwable brokenTicker) {
                        // Read before the release: thrown on, the slot stayed in flight for good
                        // and the result never completed. The event is dropped, not stamped with
                        // the attempt's start: its rttNanos of 0 would enter a latency timer as a
                        // real one. The outcome is still counted, by the release below.
                        core.tickerFailures.failed(brokenTicker);
                        traced = false;
                    }
                }
                CompletableFuture<Lease> next = null;
                if (retryDelay != null && retryDelay.isZero() && retriesFirst() && lease instanceof LeaseImpl own) {
                    // Queued before the slot is freed, so the freed slot goes to this retry, not to newer work.
                    next = own.releaseAndRequeue(outcome, cause);
                } else {
                    LeaseImpl.release(lease, outcome, cause);
                }
                if (traced) {
                    core.emit(new TraceEvent.TaskEnd(core.name(), end, index, number, Math.max(0, end - lease.startNanos()), outcome,
                            error));
                }
                act(this, value, cause, next);
            } finally {
                releaseHold();
            }
        }
    }
}
