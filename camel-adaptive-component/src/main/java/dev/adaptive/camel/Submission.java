package dev.adaptive.camel;

import dev.adaptive.AsyncTask;
import dev.adaptive.ClassifiedFailureException;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.OneListenerFuture;
import dev.adaptive.LimiterClosedException;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.RateLimitedException;
import dev.adaptive.RetryBudgetExhaustedException;
import dev.adaptive.TaskContext;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.spi.UnitOfWork;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.UnitOfWorkHelper;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * One caller exchange on its way through a pool: it waits (for a consumer, a slot, a backoff,
 * a Retry-After pause) holding no thread, runs each attempt on a fresh copy of the caller's
 * exchange, and ends exactly once, completing the caller's callback.
 *
 * <p>A first attempt admitted at once for a caller on its own thread ({@code synchronous=true},
 * a transacted exchange) runs on the caller's exchange itself instead, in its unit of work, as
 * {@code direct:} would: that spares the copy, a second unit of work and copying the results
 * back, most of what the pool costs such a caller. What a retry must not see is kept aside
 * first ({@link SentExchange}): retries start from it, and the caller's exchange goes back to it
 * before it takes a later attempt's result. Until that first attempt's route has returned,
 * nothing else writes the caller's exchange: an end that comes sooner (a task timeout, a stop)
 * waits for it.
 *
 * <p>A transacted exchange's other attempts run on the caller's thread as well, which waits in
 * {@link CallerThread} meanwhile: its transaction is bound to that thread.
 *
 * <p>It is its own task for the engine and its own listener of the execution's end, and each
 * attempt is one object (the route's run, its callback and its result): on the hot path an
 * exchange costs as few objects as the engine's bookkeeping allows.
 *
 * <p>Thread-safe: attempts never overlap, and the end is guarded by a flag.
 */
final class Submission implements AsyncTask<Exchange>, BiConsumer<Exchange, Throwable> {

    private static final VarHandle ENDED;
    private static final VarHandle RUNNING;
    private static final VarHandle SENT;
    private static final VarHandle LAST_ATTEMPT;
    private static final VarHandle IN_PLACE;
    private static final VarHandle START;

    /** {@link #inPlace}: no attempt runs on the caller's exchange (none did, or it returned). */
    private static final int NONE = 0;
    /** {@link #inPlace}: the first attempt runs on the caller's exchange. */
    private static final int RUNS = 1;
    /** {@link #inPlace}: it still runs, and the exchange's end waits for it. */
    private static final int END_WAITS = 2;

    /** {@link Run#start}: the route begins when the run is called (on a worker, or in place). */
    private static final int BEGINS = 0;
    /** {@link Run#start}: handed to a transacted caller's thread, which has not begun it yet. */
    private static final int HANDED = 1;
    /** {@link Run#start}: withdrawn by a forced shutdown before the caller's thread began it; it never begins. */
    private static final int WITHDRAWN = 2;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ENDED = lookup.findVarHandle(Submission.class, "ended", int.class);
            RUNNING = lookup.findVarHandle(Submission.class, "running", Run.class);
            SENT = lookup.findVarHandle(Submission.class, "sent", SentExchange.class);
            LAST_ATTEMPT = lookup.findVarHandle(Submission.class, "lastAttempt", Exchange.class);
            IN_PLACE = lookup.findVarHandle(Submission.class, "inPlace", int.class);
            START = lookup.findVarHandle(Run.class, "start", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ExchangePool pool;
    private final Exchange original;
    private final AsyncCallback callback;
    private final long index;
    /** 1 once the exchange ended; flipped through {@link #ENDED}. */
    @SuppressWarnings("unused")
    private volatile int ended;
    private volatile Execution<Exchange> execution;
    /** The latest attempt whose route finished before its timeout or cancellation. */
    private volatile Exchange lastAttempt;
    /**
     * The attempt in the consumer route now, or {@code null}; cleared through {@link #RUNNING}
     * when its route finishes. One abandoned by a task timeout or a stop no longer counts as
     * running, though its route may still be on its way out.
     */
    private volatile Run running;
    /** Whether a first attempt admitted at once runs on the submitting thread. */
    private final boolean onCaller;
    /**
     * The thread that sent a transacted exchange, which runs every attempt of it; {@code null}:
     * the pool's workers do, as for every other exchange.
     */
    private final CallerThread attemptsOn;
    /**
     * The thread inside {@link #run(boolean)} while it starts the execution, for {@link #onCaller}.
     * Plain, as {@link #submitting}: only that thread writes it, once to itself and once back to
     * {@code null}, and a thread that grants the first attempt later, whatever it reads, reads a
     * thread other than itself. A volatile write costs a synchronous exchange a fence each.
     */
    private Thread starting;
    /**
     * The thread in {@link #start(boolean)} from the producer's {@code process}, or {@code null}:
     * an end on it comes before {@code process} returns, and is told to Camel as synchronous.
     * Plain, not volatile: only that thread ever writes it, and any other thread that reads it,
     * whatever it sees, sees a thread other than itself.
     */
    private Thread submitting;
    /** Set by {@link #complete()} on {@link #submitting}: the callback is left to {@code start}. */
    private boolean endedInSubmit;
    /** The first attempt's route, left by call() for start() to run on the caller's thread. */
    private Run onCallerJob;
    /**
     * The caller's exchange as it was sent, once a first attempt runs on it; {@code null} while
     * every attempt runs on a copy.
     */
    private volatile SentExchange sent;
    /**
     * The caller's unit of work's on-completions before an in-place attempt, by identity: those
     * the attempt's route adds are the attempt's. Only the caller's thread writes it.
     */
    private Snapshot callersOwn;

    /**
     * The caller's on-completions, read through a hand-over that moves none (the unit of work
     * lists them no other way). Most callers have none or a few: no set, and no list until one.
     */
    private static final class Snapshot implements Predicate<Synchronization> {
        private List<Synchronization> seen;

        @Override
        public boolean test(Synchronization sync) {
            if (seen == null) {
                seen = new ArrayList<>(4);
            }
            seen.add(sync);
            return false;
        }

        boolean contains(Synchronization sync) {
            if (seen != null) {
                for (Synchronization s : seen) {
                    if (s == sync) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    /**
     * A failed in-place attempt's on-completions run now, told of its failure, as its own unit of
     * work would tell them in the default mode (an idempotent consumer forgets the key, so the
     * retry is not skipped as a duplicate); left in the caller's, they would run at its end, told
     * of the retry's success.
     */
    private void doneFailedInPlace() {
        Snapshot own = callersOwn;
        UnitOfWork uow = original.getUnitOfWork();
        if (own == null || uow == null) {
            return;
        }
        Exchange holder = new DefaultExchange(original.getContext());
        uow.handoverSynchronization(holder, sync -> !own.contains(sync));
        UnitOfWorkHelper.doneSynchronizations(original, holder.getExchangeExtension().handoverCompletions());
    }

    /** {@link #NONE}, {@link #RUNS} or {@link #END_WAITS}; moved through {@link #IN_PLACE}. */
    @SuppressWarnings("unused")
    private volatile int inPlace;
    /** The end that waits for the attempt on the caller's exchange; published by {@link #inPlace}. */
    private Exchange waitingResult;
    private Throwable waitingError;

    Submission(ExchangePool pool, Exchange original, AsyncCallback callback, long index, boolean onCaller,
               CallerThread attemptsOn) {
        this.pool = pool;
        this.original = original;
        this.callback = callback;
        this.index = index;
        this.onCaller = onCaller;
        this.attemptsOn = attemptsOn;
    }

    /**
     * Hands the exchange to the engine: from here on it waits for slots without a thread.
     *
     * @param inSubmit whether the producer's {@code process} calls it, on the caller's thread
     * @return {@code true} if the exchange ended before this returned, on this thread, and the
     *         callback was called with {@code doneSync} (only {@code inSubmit}): Camel then goes
     *         on without waiting for it, as after {@code direct:}
     */
    boolean start(boolean inSubmit) {
        if (ended != 0) {
            return false;
        }
        if (!inSubmit) {
            run(false);
            return false;
        }
        submitting = Thread.currentThread();
        try {
            run(true);
        } finally {
            submitting = null;
        }
        if (endedInSubmit) {
            callback.done(true);
            return true;
        }
        return false;
    }

    /**
     * @param inSubmit whether on the caller's thread, in the producer's {@code process}: only
     *                 there may a synchronous caller's first attempt run in place. A start for
     *                 an exchange that waited for the consumer comes from the thread that starts
     *                 the consumer route, inside the pool's lock: its attempt goes to a worker.
     */
    private void run(boolean inSubmit) {
        boolean inPlace = onCaller && inSubmit;
        if (inPlace) {
            starting = Thread.currentThread();
        }
        Execution<Exchange> e;
        try {
            // With a free slot, the executor calls call() before start() returns.
            // A transacted exchange's retries queue for their slots from the caller's thread, once
            // it is free (CallerThread.retries): only that thread can run them.
            CallerThread caller = attemptsOn;
            e = caller == null ? pool.executor().start(index, this, null)
                    : pool.executor().start(index, this, null, caller.retries());
        } finally {
            if (inPlace) {
                starting = null; // the only writes of it, and only for synchronous callers
            }
        }
        execution = e;
        Run job = onCallerJob;
        onCallerJob = null;
        if (ended != 0) {
            // fail() came between the check above and the assignment: stop what just started.
            e.cancel(new IllegalStateException("ended before start"));
            if (job != null) {
                // Cancelled, it skips its route; an end that waits for it finishes.
                job.call();
            }
            return;
        }
        OneListenerFuture.listen(e.result(), this);
        if (job != null) {
            job.call();
        }
    }

    /**
     * The pool's sequence number, not the identity hash: the live set hashes every exchange, and
     * the first identity hash of an object costs more than the rest of its entry. Equality stays
     * identity.
     */
    @Override
    public int hashCode() {
        return Long.hashCode(index);
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    /** @return whether the exchange has ended (its end may still wait for a route on the caller's exchange) */
    boolean hasEnded() {
        return ended != 0;
    }

    /**
     * What a forced shutdown asks of each exchange it finds: whether an attempt of it is running
     * in the consumer route now, to be let finish. An attempt granted its slot and handed to a
     * transacted caller's thread that has not begun it (the thread was still busy, running
     * routing work Camel queued on it) is not running: this call withdraws it, so that the
     * thread never begins it, and the shutdown then fails the exchange as a queued one. Either
     * the thread begins the attempt first, and it runs, or the withdrawal comes first, and it
     * never does: one claim through {@link Run#start} decides.
     *
     * @return whether an attempt is running (or has just begun) and is left to finish
     */
    boolean attemptRunningOrWithdraw() {
        Run r = running;
        return r != null && !r.ctx.cancellation().isCancelled() && r.begunUnlessWithdrawn();
    }

    /** @return the caller's exchange */
    Exchange original() {
        return original;
    }

    /**
     * Ends the exchange with {@code reason} unless it already ended: a queued acquisition or a
     * pending retry is withdrawn, a running attempt's cancellation fires.
     *
     * @param reason the exception the caller's exchange gets
     */
    void fail(Throwable reason) {
        Execution<Exchange> e = execution;
        if (e == null) {
            end(null, reason);
        } else {
            // If the execution already ended, its own result is on its way to end().
            e.cancel(reason);
        }
    }

    /** One attempt: the engine calls it with a slot held. */
    @Override
    public CompletionStage<Exchange> call(TaskContext ctx) throws AdaptiveConsumerNotAvailableException {
        pool.checkOpen();
        AsyncProcessor target = pool.target();
        if (target == null) {
            pool.checkNotStopping();
            throw pool.notAvailable(original, "the consumer route stopped while the exchange was queued");
        }
        int n = ctx.attempt();
        pool.onAttempt(n);
        if (onCaller && n == 1 && starting == Thread.currentThread()) {
            // The caller waits for the result anyway: no hand-off, and no copy either. start()
            // runs the route once it listens for the end, so that a task timeout can end the
            // execution while the route still runs; it frees the slot and fails the attempt, but
            // never interrupts a thread that is not the pool's.
            // Release stores, not volatile ones: each only publishes what it points to. The end's
            // Dekker handshake runs through inPlace and execution, not these: sent is ordered
            // before inPlace's volatile store right after it, and running is only a hint to a
            // forced shutdown (failQueued) and cleared by the route's done() through a CAS.
            SENT.setRelease(this, SentExchange.of(original));
            UnitOfWork uow = original.getUnitOfWork();
            if (uow != null) {
                Snapshot before = new Snapshot();
                uow.handoverSynchronization(original, before);
                callersOwn = before;
            }
            IN_PLACE.setVolatile(this, RUNS);
            Run run = attempt(target, original, ctx);
            RUNNING.setRelease(this, run);
            onCallerJob = run;
            return run;
        }
        SentExchange s = sent;
        Exchange copy = s == null ? ExchangeHelper.createCorrelatedCopy(original, false)
                : s.newAttempt((int) IN_PLACE.getVolatile(this) == NONE);
        CallerThread caller = attemptsOn;
        if (caller != null) {
            // Neither Camel's copy nor a new exchange keeps the transacted flag: without it the
            // consumer route would treat the attempt as not transacted, and an asynchronous step
            // in it (another adaptive endpoint, an asynchronous delay) would carry the rest of the
            // route to another thread, out of the caller's transaction.
            copy.getExchangeExtension().setTransacted(true);
        }
        Run run = attempt(target, copy, ctx);
        if (caller != null) {
            // It begins when the caller's thread takes it, which may be busy: until then a forced
            // shutdown fails the exchange as a queued one (attemptRunningOrWithdraw).
            START.setRelease(run, HANDED);
        }
        FutureTask<Void> job = new FutureTask<>(run);
        running = run;
        try {
            Executor workers = caller != null ? caller : pool.workers();
            workers.execute(job);
        } catch (RejectedExecutionException shutDown) {
            RUNNING.compareAndSet(this, run, null);
            throw pool.stopped("its worker threads are shut down");
        }
        // A task timeout or a stop abandons the attempt: interrupt the route's thread if it is
        // still inside it, so a blocking call does not hold the thread beyond the limit. Never
        // the caller's own thread: it is not the pool's to interrupt, as for a first attempt in place.
        ctx.cancellation().onCancel(() -> job.cancel(caller == null));
        return run;
    }

    private Run attempt(AsyncProcessor target, Exchange exchange, TaskContext ctx) {
        exchange.setProperty(AdaptiveConstants.ATTEMPT, ctx.attempt());
        // The grant's own reading, not a second one of the same clock.
        exchange.setProperty(AdaptiveConstants.DISPATCHED, ctx.startNanos());
        CarriedAnswer.mark(exchange);
        return new Run(target, exchange, ctx);
    }

    /**
     * One attempt's run through the consumer route, the callback the route completes and the
     * result the engine waits for, in one object. Not a {@link Runnable}: Camel's routing engine
     * runs a callback that is one as a task of its own instead of calling {@link #done}.
     */
    private final class Run extends OneListenerFuture<Exchange> implements Callable<Void>, AsyncCallback {
        private final AsyncProcessor target;
        private final Exchange copy;
        private final TaskContext ctx;
        /** {@link #BEGINS}, {@link #HANDED} or {@link #WITHDRAWN}; through {@link #START}. */
        @SuppressWarnings("unused")
        private volatile int start;

        Run(AsyncProcessor target, Exchange copy, TaskContext ctx) {
            this.target = target;
            this.copy = copy;
            this.ctx = ctx;
        }

        /**
         * @return {@code true} if the route has begun or begins when called; {@code false} if it
         *         was handed to the caller's thread and not begun, and is now withdrawn for good
         */
        boolean begunUnlessWithdrawn() {
            return (int) START.getVolatile(this) == BEGINS
                    || !START.compareAndSet(this, HANDED, WITHDRAWN) && (int) START.getVolatile(this) == BEGINS;
        }

        /** Runs the attempt: the route completes it through {@link #done}, on this thread or later. */
        @Override
        public Void call() {
            if ((int) START.getVolatile(this) != BEGINS) {
                if (!START.compareAndSet(this, HANDED, BEGINS)) {
                    // Withdrawn by a forced shutdown while it waited for the caller's thread: that
                    // shutdown has ended the exchange and freed the slot, and the route never begins.
                    return null;
                }
                if (ctx.cancellation().isCancelled()) {
                    // Ended while it waited for the caller's thread by a stop that found it not
                    // yet running (granted, but not yet marked as this exchange's attempt) and
                    // cancelled the exchange before the job's own cancel was registered: the
                    // route does not begin after its exchange has ended.
                    done(true);
                    return null;
                }
            }
            if (copy == original && ctx.cancellation().isCancelled()) {
                // Stopped or timed out before its route began: the caller's exchange stays as sent.
                done(true);
                return null;
            }
            try {
                target.process(copy, this);
            } catch (Throwable t) {
                copy.setException(t);
                done(false);
            }
            return null;
        }

        @Override
        public void done(boolean doneSync) {
            RUNNING.compareAndSet(Submission.this, this, null);
            if (!ctx.cancellation().isCancelled()) {
                // Published by a release store: the end reads it after the result's completion
                // below, which orders it anyway; a volatile store would add a fence per attempt.
                LAST_ATTEMPT.setRelease(Submission.this, copy);
            }
            // Handing the caller's exchange back before the engine hears of the result: the end
            // this result brings then runs at once.
            if (copy == original && copy.getException() != null) {
                doneFailedInPlace();
            }
            boolean endWaits = copy == original && !IN_PLACE.compareAndSet(Submission.this, RUNS, NONE);
            if (copy.getException() != null) {
                completeExceptionally(new AttemptFailure(copy));
            } else {
                complete(copy);
            }
            if (endWaits) {
                finish(waitingResult, waitingError);
            }
        }
    }

    /** The execution's end, with the last attempt's exchange or why it failed. */
    @Override
    public void accept(Exchange result, Throwable error) {
        end(result, error);
    }

    /**
     * Gives the caller the finished attempt's result. If the attempt has headers, the pool's go
     * on the attempt first: its route is over, so nobody reads it again, and the caller's
     * message then shares the attempt's headers until either side writes, instead of copying
     * them all for two more. Without headers there is nothing to share: the caller's message
     * gets a map of its own.
     */
    private void copyResults(Exchange attempt) {
        if (attempt == original) {
            setHeaders(original);
        } else if (attempt.getMessage().hasHeaders()) {
            setHeaders(attempt);
            ExchangeHelper.copyResults(original, attempt);
        } else {
            ExchangeHelper.copyResults(original, attempt);
            setHeaders(original);
        }
    }

    private void setHeaders(Exchange target) {
        Execution<Exchange> e = execution;
        Message m = target.getMessage();
        m.setHeader(AdaptiveConstants.ATTEMPTS, e == null ? 0 : e.attempts());
        m.setHeader(AdaptiveConstants.CONCURRENCY, pool.limiter().limit());
    }

    private void end(Exchange result, Throwable error) {
        if (!ENDED.compareAndSet(this, 0, 1)) {
            return;
        }
        if (sent != null) {
            waitingResult = result;
            waitingError = error;
            if (IN_PLACE.compareAndSet(this, RUNS, END_WAITS)) {
                // The first attempt's route still writes the caller's exchange: its done() ends.
                return;
            }
        }
        finish(result, error);
    }

    private void finish(Exchange result, Throwable error) {
        Throwable cause = error == null ? null : OutcomeClassifier.unwrap(error);
        Exchange source = source(result, cause);
        SentExchange s = sent;
        if (s != null && source != original) {
            // The caller's exchange gets another attempt's result, or none: first it goes back
            // to what it was when sent, as if the first attempt had run on a copy too.
            s.restore(original);
        }
        if (cause == null) {
            copyResults(result);
        } else if (cause instanceof AttemptFailure f) {
            copyResults(f.attempt());
            // Failed as the pool stopped, perhaps because the stop closed what the route used
            // (camel-http's connection pool, say): the caller learns of the stop, with the
            // attempt's own exception as the cause, as for the attempts the stop cancels.
            AdaptivePoolStoppedException stopped = pool.stoppedDuringAttempt(original.getException());
            if (stopped != null) {
                original.setException(stopped);
            }
        } else if (cause instanceof RetryBudgetExhaustedException refused && source != null) {
            // The retry budget refused a retry: the caller gets the last attempt's result, as when
            // its retries run out, and the budget's exception with the attempt's own failure as its
            // cause (the route's exception, not the engine's carrier of it).
            copyResults(source);
            original.setException(refused.getCause() instanceof AttemptFailure f
                    ? withCause(refused, f.attempt().getException()) : refused);
        } else if ((cause instanceof RateLimitedException || cause instanceof ClassifiedFailureException)
                && lastAttempt != null) {
            // The route succeeded but the classifier read its result as a failure (a 429 with
            // throwExceptionOnFailure=false, say) and the budget ran out: the caller gets
            // that last response and the reason it counts as a failure.
            copyResults(lastAttempt);
            original.setException(cause);
        } else {
            original.setException(cause instanceof LimiterClosedException
                    ? pool.stopped("it was queued when the pool stopped") : cause);
            setHeaders(original);
        }
        // On the submitting thread, still in start(): the pool has not tracked it yet.
        pool.onEnd(this, original.getException() == null, submitting != Thread.currentThread());
        complete();
    }

    /**
     * @return the attempt whose result the caller's exchange gets, or {@code null} if none: for a
     *         retry the budget refused, the one its last failure came from
     */
    private Exchange source(Exchange result, Throwable cause) {
        if (cause == null) {
            return result;
        }
        Throwable last = cause instanceof RetryBudgetExhaustedException ? cause.getCause() : cause;
        if (last instanceof AttemptFailure f) {
            return f.attempt();
        }
        if (last instanceof RateLimitedException || last instanceof ClassifiedFailureException) {
            return lastAttempt;
        }
        return null;
    }

    /** The same refusal, with {@code cause} in place of the engine's carrier of it. */
    private static RetryBudgetExhaustedException withCause(RetryBudgetExhaustedException refused, Throwable cause) {
        RetryBudgetExhaustedException copy = new RetryBudgetExhaustedException(refused.getMessage(), cause);
        copy.setStackTrace(refused.getStackTrace());
        return copy;
    }

    /** Completes the caller's callback, never on the timers' thread. */
    private void complete() {
        if (submitting == Thread.currentThread()) {
            // Still in the producer's process(): it calls the callback, as synchronous.
            endedInSubmit = true;
            return;
        }
        if (ExecutorScheduler.onSchedulerThread()) {
            // Ended by a timer (a task or consumer timeout): the caller's route goes on from here,
            // and must not do so on the one thread every pool's timers share.
            try {
                pool.workers().execute(() -> callback.done(false));
                return;
            } catch (RejectedExecutionException shutDown) {
                // Stopping: nothing else will run on the scheduler either.
            }
        }
        callback.done(false);
    }
}
