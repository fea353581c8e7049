package dev.adaptive.pool;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.AsyncTask;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.Lease;
import dev.adaptive.LimitChangeListener;
import dev.adaptive.Limiter;
import dev.adaptive.LimiterClosedException;
import dev.adaptive.LimiterStats;
import dev.adaptive.limit.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.StopPoolException;
import dev.adaptive.TaskContext;
import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.LiveSet;
import dev.adaptive.internal.OptionChecks;
import dev.adaptive.internal.SlotReturn;
import dev.adaptive.internal.WorkLoop;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One run of a pool, the batch runner of every face: feeds items from a {@link Source} through
 * a {@link Limiter}, starting each item's execution (retries, timeout, Retry-After pauses) with
 * a {@link Starter}, hands each settled item to a {@link Sink}, and ends the run exactly once.
 * {@link ItemPool} runs it on a limiter of its own; the Vert.x pool on the shared limiter of
 * an {@code AdaptiveLimiter}, with every pass on the caller's event-loop context. For the faces
 * of this library, not for users: its construction may change in any release.
 *
 * <p><b>Feeding.</b> The feeder first holds a lease, then pulls an item, then starts the item's
 * execution with that lease, so a lazy input is pulled only when a slot is free, and at most
 * one acquisition is outstanding. It is a {@link WorkLoop}: whoever has news for it (a granted
 * lease, a settled item, an arrived item, a stop) signals it, exactly one pass runs at a time,
 * and passes run on the run's executor ({@code Runnable::run}, the signalling thread, by
 * default; an event-loop context in Vert.x). An execution that completes synchronously settles
 * inside the feeder's pass and its signal only counts, so a synchronous input of any length
 * runs in constant stack depth; with {@link Builder#yieldEvery} the feeder also hands its thread
 * back every so many items.
 *
 * <p><b>Delivery.</b> Settled items go to a lock-free queue drained by a second work loop on the
 * same executor, so the sink is never called concurrently. An item counts as pending from its
 * acceptance until the sink took it; the feeder accepts no more than {@link #pendingCap()}
 * pending items, which bounds memory by the concurrency, including items waiting for a retry
 * and, for a publisher, items waiting for demand. In an outage of the downstream
 * ({@link Limiter#isOutage()}) the feeder offers one item beyond the cap for each probe the
 * limiter admits, so that the probes are first attempts: memory then grows by one item per
 * probe, at most one per probe interval.
 *
 * <p><b>Stop.</b> The first stop (a task's {@link StopPoolException}, a cancellation, the
 * deadline, a limiter that refuses the run a slot, a {@code later} executor that refuses the
 * feeder's next turn) cancels every live execution and closes intake; accepted items not yet
 * started end as errors with zero attempts.
 *
 * <p>Thread-safe.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public final class PoolEngine<T, R> {

    /**
     * Starts one item's execution with the lease the run holds for its first attempt: an
     * {@link dev.adaptive.AdaptiveExecutor}'s {@code start}, or a face's, which may run each
     * attempt elsewhere (on an event-loop context) and track the execution for its own close.
     *
     * @param <R> the result type
     */
    @FunctionalInterface
    public interface Starter<R> {
        /**
         * @param index the item's index
         * @param task  the attempt, to call once per attempt
         * @param lease the first attempt's lease
         * @param hooks what the execution reports to ({@link AdaptiveExecutor#start(long, AsyncTask, Lease, ExecutionHooks)}):
         *              the run finishes only once every execution told it is over
         * @return the running execution
         */
        Execution<R> start(long index, AsyncTask<R> task, Lease lease, ExecutionHooks hooks);
    }

    /** A stop: why the run stopped, and what its unfinished items end with. */
    private record Stop(PoolAbortedException cause, Throwable itemError) {
    }

    private static final Runnable NOTHING = () -> { };
    private static final System.Logger LOG = System.getLogger(PoolEngine.class.getName());

    private final Source<T> source;
    private final Sink<T, R> sink;
    private final ItemProcessor<? super T, R> processor;
    private final Limiter limiter;
    private final Starter<R> starter;
    private final PerformanceRecorder performance;
    private final Runnable unfollow;
    private final Runnable onEnd;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final int maxPending;
    private final Duration deadline;
    private final List<CompletionStage<?>> cancellations;
    /** The default executor: every pass on the signalling thread. */
    private static final Executor CALLING_THREAD = Runnable::run;

    private final Executor executor;
    private final Executor later;
    private final int yieldEvery;
    private final WorkLoop feeder;
    private final WorkLoop delivery;
    private final Runnable resumeFeeder;
    /** Pumps the feeder when an outage begins, so that a feeder held by the pending cap offers its probes. */
    private final Consumer<TraceEvent.Outage> onOutage = e -> pump();

    private final LiveSet<Execution<R>, Throwable> live = new LiveSet<>(Execution::cancel);
    private final AtomicInteger pending = new AtomicInteger();
    private final LongAdder succeeded = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder attempts = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder callbackFailures = new LongAdder();
    /**
     * The run's own readings of its limiter's ticker and cancels of its timers that threw and
     * were survived; {@link PoolStats#limitFailures()} adds them to the limiter's.
     */
    private final LongAdder timeFailures = new LongAdder();
    private final CallbackFailures tickerFailures;
    private final CallbackFailures cancelFailures;
    private final AtomicReference<Stop> stop = new AtomicReference<>();
    private volatile PoolAbortedException inputFailure;

    // Feeder state: touched only by the feeder's pass.
    private final AtomicReference<Object> grant = new AtomicReference<>();
    private CompletableFuture<Lease> pendingAcquire;
    private Lease heldLease;
    private long nextIndex;
    private volatile long accepted;
    private volatile boolean intakeClosed;

    private final Queue<Object> outbox = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean finished = new AtomicBoolean();
    /**
     * Executions started and not yet over, and the feeder's acquisition withdrawn by a stop or
     * failed (its wait timed out) until no grant holds a slot for it. An item settles when its execution's result
     * completes, but an attempt that was starting on another thread as a stop cancelled it (a
     * retry granted its slot at that moment) gives its slot back a moment later, and so does
     * the limiter for an acquisition withdrawn while it was granting it a slot (the feeder's,
     * or an execution's, which is over only after that): the run finishes, and stops a limiter
     * of its own, only once none of them holds a slot.
     */
    private final AtomicInteger unfinished = new AtomicInteger();
    private final ExecutionHooks overWhenDone = new ExecutionHooks() {
        @Override
        public void finished() {
            if (unfinished.decrementAndGet() == 0) {
                deliver();
            }
        }
    };
    private volatile long startNanos;
    private volatile LimiterStats atStart;
    private volatile Cancellable deadlineTimer;
    private volatile PoolStats finalStats;
    private final AtomicReference<PoolEngine<T, R>> self = new AtomicReference<>(this);

    private PoolEngine(Builder<R> b, Source<T> source, Sink<T, R> sink, ItemProcessor<? super T, R> processor) {
        this.source = Objects.requireNonNull(source, "source");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.processor = Objects.requireNonNull(processor, "processor");
        this.limiter = b.limiter;
        this.starter = b.starter;
        this.ticker = limiter.ticker();
        // First, before the run registers anything: a run stopped before start() (a subscriber
        // that cancels in onSubscribe) finishes at once and its stats must measure from here,
        // not from 0; and a ticker that throws here leaves no run to end, so it must leave
        // nothing behind either (the limit follower below sits on a limiter that may be shared).
        this.startNanos = ticker.nanoTime();
        this.scheduler = limiter.scheduler();
        this.tickerFailures = new CallbackFailures(LOG, limiter.name(), "pool run's ticker", timeFailures);
        this.cancelFailures = new CallbackFailures(LOG, limiter.name(), "pool run's timer's cancel", timeFailures);
        this.maxPending = b.maxPending;
        this.deadline = b.deadline;
        this.cancellations = List.copyOf(b.cancellations);
        this.onEnd = b.onEnd;
        this.executor = orCallingThread(b.executor);
        this.later = b.later != null ? b.later : task -> scheduler.schedule(task, 0);
        this.yieldEvery = b.yieldEvery;
        this.performance = new PerformanceRecorder(ticker, tickerFailures);
        this.unfollow = b.follow != null ? b.follow.apply(performance) : NOTHING;
        this.feeder = new WorkLoop(executor, this::feedPass);
        this.delivery = new WorkLoop(executor, this::deliverPass);
        this.resumeFeeder = feeder::resume;
    }

    /**
     * @param limiter the limiter every attempt passes; its ticker and scheduler are the run's
     * @param starter starts each item's execution on that limiter
     * @param <R>     the result type
     * @return a builder of runs
     */
    public static <R> Builder<R> builder(Limiter limiter, Starter<R> starter) {
        return new Builder<>(limiter, starter);
    }

    /**
     * Starts the run on the calling thread: the first items are dispatched before it returns
     * (when the executor runs passes on the calling thread). A face whose runs live elsewhere
     * calls it there.
     *
     * @throws IllegalStateException if the run already started
     */
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("a run starts once");
        }
        if (finished.get()) {
            return; // stopped and ended before it started: nothing to arm or open
        }
        try {
            startNanos = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // Measured from its build, the reading the run already has. Thrown from here, it
            // would leave the run begun and never ended: a publisher's subscriber, told
            // onSubscribe, would never hear an end, nor a face's run future complete.
            tickerFailures.failed(brokenTicker);
        }
        atStart = limiter.stats();
        performance.start(limiter.limit(), startNanos);
        limiter.addOutageListener(onOutage);
        if (deadline != null) {
            try {
                deadlineTimer = scheduler.schedule(() -> stop(PoolAbortedException.Reason.DEADLINE, null), deadline);
            } catch (Throwable refused) {
                // A scheduler that refuses (a shut-down executor) cannot bound the run: it ends
                // at once, as at its deadline, with the refusal as the cause. Thrown from here,
                // the refusal left a run begun and never ended (a publisher's subscriber never
                // heard an end).
                stop(PoolAbortedException.Reason.DEADLINE, refused);
            }
        }
        for (CompletionStage<?> c : cancellations) {
            // The callback stays on the user's stage after the run; it must not keep the run
            // (and everything it collected) alive, so it reaches the run through a cleared ref.
            c.whenComplete((value, error) -> {
                PoolEngine<T, R> run = self.get();
                if (run != null) {
                    run.stop(PoolAbortedException.Reason.CANCELLED,
                            error != null ? OutcomeClassifier.unwrap(error) : value instanceof Throwable t ? t : null);
                }
            });
        }
        if (stop.get() == null) {
            // A cancellation that had already fired ended the run above: no point subscribing.
            source.open(this::pump);
        }
        pump();
    }

    /** @return the limiter the run's attempts pass */
    public Limiter limiter() {
        return limiter;
    }

    /**
     * Cancels the run.
     *
     * @param cause what to report as the cause, or {@code null}
     * @return {@code true} if this call stopped it
     */
    public boolean cancel(Throwable cause) {
        return stop(PoolAbortedException.Reason.CANCELLED, cause);
    }

    /**
     * @return the stats so far; once the run ended, the final ones. Never throws: if the ticker
     *         throws when read for "now", the failure is counted in these stats'
     *         {@link PoolStats#limitFailures()} and they are as of the run's last reading (its
     *         start, or its limit's last change)
     */
    public PoolStats snapshot() {
        PoolStats done = finalStats;
        if (done != null) {
            return done;
        }
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // A view must answer, as the limiter's stats do: a face polls it for its meters and
            // its status, where a throw is nobody's to handle. Counted first, so these stats
            // show it. The run's last reading is one at which its stretches are closed, so
            // elapsed and the stretches still agree.
            tickerFailures.failed(brokenTicker);
            now = performance.lastReading(startNanos);
        }
        return stats(now);
    }

    /** @return the run's scheduler */
    public Scheduler scheduler() {
        return scheduler;
    }

    // ---- feeding -----------------------------------------------------------------------

    /** Signals the feeder. */
    void pump() {
        feeder.signal();
    }

    private boolean feedPass() {
        try {
            return feed();
        } catch (Throwable bug) {
            // Nothing in feed() should throw; if something does (an Error too), end intake
            // cleanly rather than leave the loop claimed and the run unfinished.
            if (inputFailure == null) {
                inputFailure = new PoolAbortedException(PoolAbortedException.Reason.INPUT_FAILED, bug);
            }
            closeIntake(false);
            return true;
        }
    }

    /** @return {@code false} if it yielded the thread, {@link #resumeFeeder} being on its way */
    private boolean feed() {
        int dispatched = 0;
        for (;;) {
            if (intakeClosed) {
                releaseStrayGrant();
                return true;
            }
            if (stop.get() != null) {
                closeIntake(true);
                return true;
            }
            if (heldLease == null && !obtainLease()) {
                return true;
            }
            Object next = source.next();
            if (next == Source.WAIT) {
                // The item is on its way; give the slot back so that it is not held (and its
                // RTT not counted) while the input takes its time. The arrival pumps again.
                releaseHeld();
                return true;
            }
            if (next == Source.END) {
                Throwable f = source.failure();
                if (f != null) {
                    inputFailure = new PoolAbortedException(PoolAbortedException.Reason.INPUT_FAILED, f);
                }
                closeIntake(false);
                return true;
            }
            Lease lease = heldLease;
            heldLease = null;
            @SuppressWarnings("unchecked")
            T item = (T) next;
            dispatch(item, lease);
            if (++dispatched == yieldEvery) {
                if (runLater(resumeFeeder)) {
                    return false;
                }
                // Refused: the run stopped (runLater); the next round sees the stop and
                // closes intake, ending the rest of a finite input as errors.
                dispatched = 0;
            }
        }
    }

    /** @return {@code true} if {@link #heldLease} is now set; {@code false} to wait for news */
    private boolean obtainLease() {
        Object g = grant.getAndSet(null);
        if (g != null) {
            CompletableFuture<Lease> f = pendingAcquire;
            pendingAcquire = null;
            if (g instanceof Lease lease) {
                heldLease = lease;
                return true;
            }
            // Failed: its wait may have timed out while the limiter was granting it a slot.
            awaitSlotBack(f);
            refused(OutcomeClassifier.unwrap((Throwable) g));
            return false;
        }
        if (pendingAcquire != null || !source.ready() || (pending.get() >= pendingCap() && !limiter.isOutage())) {
            // In an outage the limiter admits one probe at a time, a first attempt where one
            // waits: the feeder offers one new item for each, beyond the cap, so that the items
            // it holds keep their retries for after the outage instead of probing with them.
            return false;
        }
        CompletableFuture<Lease> f = limiter.acquire();
        if (f.isDone() && !f.isCompletedExceptionally()) {
            heldLease = f.join();
            return true;
        }
        pendingAcquire = f;
        f.whenComplete((lease, error) -> {
            grant.set(error != null ? error : lease);
            pump();
        });
        // The grant may already be there (completed between the check and the callback).
        return obtainGrantNow();
    }

    /**
     * The limiter refused the run a slot: closed, or its queue full of other callers' calls (a
     * shared limiter), or the wait for a slot timed out. The run cannot go on: it stops as
     * cancelled, with the refusal as the cause.
     */
    private void refused(Throwable refusal) {
        PoolAbortedException cause = new PoolAbortedException(PoolAbortedException.Reason.CANCELLED, refusal);
        // Whoever closed the limiter may be cancelling the run's executions with its own
        // LimiterClosedException at this moment (the Vert.x limiter's close does); the run
        // cancels them with the same exception, so every item ends the same way whichever
        // cancel comes first.
        stop(cause, refusal instanceof LimiterClosedException ? refusal : cause);
    }

    private boolean obtainGrantNow() {
        Object g = grant.get();
        if (g instanceof Lease && grant.compareAndSet(g, null)) {
            pendingAcquire = null;
            heldLease = (Lease) g;
            return true;
        }
        return false;
    }

    private int pendingCap() {
        return maxPending > 0 ? maxPending : (int) Math.min(Integer.MAX_VALUE, 2L * limiter.limit());
    }

    private void dispatch(T item, Lease lease) {
        long index = nextIndex++;
        accepted = accepted + 1; // single writer: the feeder
        pending.incrementAndGet();
        unfinished.incrementAndGet();
        Execution<R> e;
        try {
            e = starter.start(index, ctx -> call(item, ctx), lease, overWhenDone);
        } catch (Throwable broken) {
            // The item was accepted: it ends as an error with no attempt, and the slot the run
            // held for it goes back (a no-op if the starter released it).
            unfinished.decrementAndGet();
            lease.release(Outcome.IGNORED);
            failed.increment();
            outbox.offer(new ItemError<>(index, item, broken, 0));
            deliver();
            return;
        }
        CompletableFuture<R> result = e.result();
        boolean tracked = !result.isDone();
        if (tracked) {
            live.add(e);
        }
        result.whenComplete((value, error) -> {
            if (tracked) {
                live.remove(e);
            }
            settle(index, item, value, error, e.attempts());
        });
        Stop s = stop.get();
        if (s != null) {
            e.cancel(s.itemError()); // the stop's sweep of live executions may have run before the add
        }
    }

    /**
     * Runs one attempt and watches for {@link StopPoolException} before the executor sees it:
     * the executor releases the attempt's slot first, and the freed slot must not go to the
     * next item of a pool that is stopping.
     */
    private CompletionStage<R> call(T item, TaskContext ctx) throws Exception {
        CompletionStage<R> stage;
        try {
            stage = processor.process(item, ctx);
        } catch (StopPoolException sp) {
            markStopped(sp);
            throw sp;
        }
        if (stage == null) {
            return null; // the executor reports it as a failed attempt
        }
        if (stage instanceof CompletableFuture<R> done && done.isDone()) {
            // Already answered (a synchronous task): look now, without another stage per item.
            if (done.isCompletedExceptionally()) {
                done.whenComplete(this::watchForStop);
            }
            return stage;
        }
        return stage.whenComplete(this::watchForStop);
    }

    private void watchForStop(Object value, Throwable error) {
        if (error != null && OutcomeClassifier.unwrap(error) instanceof StopPoolException sp) {
            markStopped(sp);
        }
    }

    private void markStopped(StopPoolException cause) {
        PoolAbortedException s = new PoolAbortedException(PoolAbortedException.Reason.STOPPED, cause);
        stop.compareAndSet(null, new Stop(s, s));
    }

    private void closeIntake(boolean stopped) {
        CompletableFuture<Lease> f = pendingAcquire;
        if (f != null) {
            pendingAcquire = null;
            f.cancel(false);
            f.thenAccept(lease -> lease.release(Outcome.IGNORED)); // granted before the cancel
            awaitSlotBack(f);
        }
        releaseHeld();
        releaseStrayGrant();
        if (stopped) {
            Throwable itemError = stop.get().itemError();
            source.drainAccepted(item -> {
                @SuppressWarnings("unchecked")
                T t = (T) item;
                rejectAccepted(t, itemError);
            });
        } else {
            source.cancel();
        }
        intakeClosed = true;
        deliver();
    }

    /**
     * The feeder's acquisition {@code f} ended without its lease: withdrawn by a stop, or failed
     * (its wait timed out). A slot the limiter was granting it at that instant (counted, not yet
     * handed over) goes back a moment later, on the granting thread: {@code f} counts as
     * unfinished until then, so that the run ends only after that, as after an execution. At
     * once in every other case. Called before intake closes, so before the run can finish.
     */
    private void awaitSlotBack(CompletableFuture<Lease> f) {
        unfinished.incrementAndGet();
        SlotReturn.whenSlotBack(f, overWhenDone::finished);
    }

    private void rejectAccepted(T item, Throwable cause) {
        long index = nextIndex++;
        accepted = accepted + 1;
        pending.incrementAndGet();
        failed.increment();
        outbox.offer(new ItemError<>(index, item, cause, 0));
    }

    private void releaseHeld() {
        Lease l = heldLease;
        if (l != null) {
            heldLease = null;
            l.release(Outcome.IGNORED);
        }
    }

    private void releaseStrayGrant() {
        Object g = grant.getAndSet(null);
        if (g instanceof Lease lease) {
            lease.release(Outcome.IGNORED);
        }
    }

    // ---- settling and delivery ---------------------------------------------------------

    private void settle(long index, T item, R value, Throwable error, int attemptCount) {
        attempts.add(attemptCount);
        if (attemptCount > 1) {
            retries.add(attemptCount - 1L);
        }
        if (error == null) {
            succeeded.increment();
            outbox.offer(new ItemResult<>(index, item, value, attemptCount));
        } else {
            Throwable cause = OutcomeClassifier.unwrap(error);
            failed.increment();
            outbox.offer(new ItemError<>(index, item, cause, attemptCount));
            if (cause instanceof StopPoolException sp) {
                markStopped(sp);
                // Deferred by one turn of the run's executor: this settle may run inside
                // another item's settle (a synchronous throw in the slot that item freed), and
                // that item, whose answer is already in, must end with its answer, not with
                // the stop. If that turn is refused, the sweep runs now: such an item may then
                // end with the stop, but no running attempt is left uncancelled.
                if (!runLater(this::sweep)) {
                    executor.execute(this::sweep);
                }
            }
        }
        deliver();
    }

    /** Counts a failure of the output's own code that the engine did not call (a subscriber's onSubscribe). */
    void callbackFailed() {
        callbackFailures.increment();
    }

    /** Signals the delivery loop: it drains the outbox into the sink, then lets the feeder go on. */
    void deliver() {
        delivery.signal();
    }

    private boolean deliverPass() {
        boolean delivered = false;
        while (sink.canDeliver()) {
            Object settled = outbox.poll();
            if (settled == null) {
                break;
            }
            handOver(settled);
            pending.decrementAndGet();
            delivered = true;
        }
        if (delivered) {
            pump();
        }
        tryFinish();
        return true;
    }

    @SuppressWarnings("unchecked")
    private void handOver(Object settled) {
        try {
            if (settled instanceof ItemResult<?, ?> r) {
                sink.onResult((ItemResult<T, R>) r);
            } else {
                sink.onError((ItemError<T>) settled);
            }
        } catch (Throwable t) {
            // A listener that throws loses nothing but its own call: the item still counts as
            // settled, and the failure is counted in the stats.
            callbackFailures.increment();
        }
    }

    // ---- stop and finish ---------------------------------------------------------------

    private boolean stop(PoolAbortedException.Reason reason, Throwable cause) {
        PoolAbortedException s = new PoolAbortedException(reason, cause);
        return stop(s, s);
    }

    private boolean stop(PoolAbortedException cause, Throwable itemError) {
        if (finished.get()) {
            return false;
        }
        if (!stop.compareAndSet(null, new Stop(cause, itemError))) {
            return false;
        }
        // On the run's executor, so that a face whose run lives on one context cancels its
        // items there.
        executor.execute(this::sweep);
        return true;
    }

    /**
     * Hands {@code task} to {@code later}. One that refuses it (anything it throws: a closed
     * event-loop context, a shut-down scheduler) leaves the run without its next turn, so the
     * run stops as when the limiter refuses it a slot: {@code CANCELLED}, the refusal as the
     * cause, every accepted item ending once (the rest of an array or a collection as errors).
     *
     * @return whether {@code later} took the task
     */
    private boolean runLater(Runnable task) {
        try {
            later.execute(task);
            return true;
        } catch (Throwable refused) {
            stop(PoolAbortedException.Reason.CANCELLED, refused);
            return false;
        }
    }

    /**
     * The run's executor, for its passes and a stop's sweep. One that refuses a task (throws
     * without running it: shut down, a closed context) would leave the run without that pass: a
     * stop's sweep lost, so attempts still running would not be cancelled, and a work loop whose
     * pass it refused claimed for good, so the run would never end. A refused task runs on the
     * calling thread instead, as with the default executor; the work loops still run one pass
     * at a time. A task the executor ran and that threw is not run again: its throw goes on.
     */
    private static Executor orCallingThread(Executor executor) {
        if (executor == CALLING_THREAD) {
            return executor; // refuses nothing: no wrapper, and no object more per pass
        }
        return task -> {
            RunOnce once = new RunOnce(task);
            try {
                executor.execute(once);
            } catch (Throwable refused) {
                if (!once.claim()) {
                    throw refused; // it ran (or runs), and this is its own throw, or the executor's after it
                }
                task.run();
            }
        };
    }

    /** A task that runs at most once, whichever of the executor and the calling thread claims it first. */
    private static final class RunOnce extends AtomicBoolean implements Runnable {
        private final Runnable task;

        RunOnce(Runnable task) {
            this.task = task;
        }

        boolean claim() {
            return compareAndSet(false, true);
        }

        @Override
        public void run() {
            if (claim()) {
                task.run();
            }
        }
    }

    /** Cancels every live execution with the stop's exception and lets the feeder close intake. */
    private void sweep() {
        live.close(stop.get().itemError());
        pump();
    }

    private void tryFinish() {
        if (intakeClosed && pending.get() == 0 && outbox.isEmpty() && unfinished.get() == 0
                && finished.compareAndSet(false, true)) {
            finish();
        }
    }

    private void finish() {
        // The run has claimed its end (finished is set): nothing here may throw, or it never
        // completes. Without a reading, its elapsed time and its limit's last stretch end at its
        // start; a deadline timer whose cancel throws fires later and finds the run ended.
        long end;
        try {
            end = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            tickerFailures.failed(brokenTicker); // never throws
            end = startNanos;
        }
        Cancellable timer = deadlineTimer;
        if (timer != null) {
            try {
                timer.cancel();
            } catch (Throwable brokenCancel) {
                // As above: stop() does nothing once the run has finished.
                cancelFailures.failed(brokenCancel);
            }
        }
        self.set(null);
        performance.finish(end);
        unfollow.run();
        limiter.removeOutageListener(onOutage);
        source.close();
        PoolStats stats = stats(end);
        finalStats = stats;
        // What the face owns for the run (its limiter, its threads) goes after the last item.
        onEnd.run();
        sink.complete(stats);
    }

    private PoolStats stats(long nowNanos) {
        LimiterStats ls = limiter.stats();
        LimiterStats base = atStart != null ? atStart : ls;
        Stop s = stop.get();
        // Event counts are the limiter's during the run: a shared limiter counts its other
        // callers too, but not what it counted before the run.
        return new PoolStats(ls.limit(), performance.maxLimit(ls.limit()),
                ls.congestionEvents() - base.congestionEvents(), ls.rateLimitEvents() - base.rateLimitEvents(),
                ls.outages() - base.outages(), retries.sum(), attempts.sum(), accepted, succeeded.sum(), failed.sum(),
                Duration.ofNanos(Math.max(0, nowNanos - startNanos)), performance.segments(nowNanos),
                performance.truncated(nowNanos), performance.totals(nowNanos), callbackFailures.sum(),
                ls.limitFailures() - base.limitFailures() + timeFailures.sum(),
                Optional.ofNullable(s != null ? s.cause() : inputFailure));
    }

    /**
     * Builds runs on one limiter; each {@link #build} makes an independent run. Not thread-safe.
     * Defaults: passes on the signalling thread, never yielding; at most twice the limit
     * pending; no deadline; no cancellation; nothing to release at the end.
     *
     * @param <R> the result type
     */
    public static final class Builder<R> {
        private final Limiter limiter;
        private final Starter<R> starter;
        private Function<? super LimitChangeListener, Runnable> follow;
        private Executor executor = CALLING_THREAD;
        private Executor later;
        private int yieldEvery;
        private int maxPending;
        private Duration deadline;
        private final List<CompletionStage<?>> cancellations = new ArrayList<>();
        private Runnable onEnd = NOTHING;

        private Builder(Limiter limiter, Starter<R> starter) {
            this.limiter = Objects.requireNonNull(limiter, "limiter");
            this.starter = Objects.requireNonNull(starter, "starter");
        }

        /**
         * @param follow registers a listener for the limiter's limit changes and returns what
         *               unregisters it; the run follows the limit for its performance data and
         *               maximum. Default none: the stats then see only the limit at the start
         * @return this
         */
        public Builder<R> followLimit(Function<? super LimitChangeListener, Runnable> follow) {
            this.follow = Objects.requireNonNull(follow, "follow");
            return this;
        }

        /**
         * @param executor runs the run's serial passes (feeding, delivery, a stop's sweep):
         *                 now on the calling thread if it may run there, else where it
         *                 belongs; default {@code Runnable::run}. A task it refuses (throws
         *                 anything without running it: shut down, a closed context) runs on
         *                 the calling thread instead, so that the run still ends
         * @param later    runs a pass after what is already waiting there: a feeder that
         *                 yields and a stop deferred by one turn go through it; default one
         *                 turn of the limiter's scheduler. A refused yield stops the run
         *                 ({@link #yieldEvery}); a refused deferral sweeps at once
         * @return this
         */
        public Builder<R> executor(Executor executor, Executor later) {
            this.executor = Objects.requireNonNull(executor, "executor");
            this.later = Objects.requireNonNull(later, "later");
            return this;
        }

        /**
         * @param items the feeder hands its thread back (through {@code later}) after starting
         *              this many items in one pass; 0 (default) never. If {@code later} refuses
         *              (throws anything), the run stops as {@code CANCELLED} with the refusal as
         *              the cause, as when the limiter refuses it a slot: running attempts are
         *              cancelled, and the rest of an array or a collection ends as errors
         * @return this
         */
        public Builder<R> yieldEvery(int items) {
            this.yieldEvery = OptionChecks.atLeast("yieldEvery", items, 0);
            return this;
        }

        /**
         * @param maxPending bound on accepted items not yet handed to the sink; 0 (default) is
         *                   twice the current limit
         * @return this
         */
        public Builder<R> maxPending(int maxPending) {
            this.maxPending = OptionChecks.atLeast("maxPending", maxPending, 0);
            return this;
        }

        /**
         * @param deadline the most a run may take, in the limiter's ticker time, or {@code null}
         *                 for none (default); positive, as the face's options checked it
         *                 ({@link PoolOptions.Builder#deadline})
         * @return this
         */
        public Builder<R> deadline(Duration deadline) {
            this.deadline = deadline;
            return this;
        }

        /**
         * @param stages each cancels the run when it completes, normally or not
         * @return this
         */
        public Builder<R> cancellations(List<? extends CompletionStage<?>> stages) {
            stages.forEach(s -> cancellations.add(Objects.requireNonNull(s, "cancellation")));
            return this;
        }

        /**
         * @param onEnd releases what the face owns for the run (its own limiter, its threads),
         *              once every item ended and before the sink completes; default nothing
         * @return this
         */
        public Builder<R> onEnd(Runnable onEnd) {
            this.onEnd = Objects.requireNonNull(onEnd, "onEnd");
            return this;
        }

        /**
         * @param source    the input
         * @param sink      where settled items go
         * @param processor the work per item
         * @param <T>       the item type
         * @return a run, not started
         * @throws RuntimeException (anything, an {@code Error} too) what the limiter's ticker threw
         *                          when read for the run's start: there is no run, and nothing
         *                          was registered ({@link #followLimit} is not called)
         */
        public <T> PoolEngine<T, R> build(Source<T> source, Sink<T, R> sink, ItemProcessor<? super T, R> processor) {
            return new PoolEngine<>(this, source, sink, processor);
        }
    }
}
