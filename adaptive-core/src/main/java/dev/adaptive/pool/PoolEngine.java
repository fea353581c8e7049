package dev.adaptive.pool;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Execution;
import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.StopPoolException;
import dev.adaptive.TaskContext;
import dev.adaptive.internal.WorkLoop;
import dev.adaptive.limit.Limit;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One run of a pool: feeds items from a {@link Source} through an {@link AdaptiveExecutor},
 * hands each settled item to a {@link Sink}, and ends the run exactly once.
 *
 * <p><b>Feeding.</b> The feeder first holds a lease, then pulls an item, then starts the item's
 * execution with that lease, so a lazy input is pulled only when a slot is free. It runs under
 * a work-in-progress counter: whoever has news for it (a granted lease, a settled item, an
 * arrived item, a stop) calls {@link #pump()}, and exactly one thread feeds at a time while the
 * others only mark that another pass is due. An execution that completes synchronously settles
 * inside the feeder's loop and its {@code pump()} just marks a pass, so a synchronous input of
 * any length runs in constant stack depth.
 *
 * <p><b>Delivery.</b> Settled items go to a lock-free queue drained by the same pattern, so the
 * sink is never called concurrently. An item counts as pending from its acceptance until the
 * sink took it; the feeder accepts no more than {@link #pendingCap()} pending items, which
 * bounds memory by the concurrency, including items waiting for a retry and, for a publisher,
 * items waiting for demand.
 *
 * <p><b>Stop.</b> The first stop (a task's {@link StopPoolException}, a cancellation, the
 * deadline) cancels every live execution and closes intake; accepted items not yet started end
 * as errors with zero attempts.
 */
final class PoolEngine<T, R> {

    private final PoolOptions options;
    private final Source<T> source;
    private final Sink<T, R> sink;
    private final ItemProcessor<? super T, R> processor;
    private final ExecutorService ownedThreads;
    private final Limiter limiter;
    private final AdaptiveExecutor executor;
    private final PerformanceRecorder performance;
    private final Ticker ticker;
    private final Scheduler scheduler;

    private final Map<Long, Execution<R>> live = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final LongAdder succeeded = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder attempts = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder callbackFailures = new LongAdder();
    private final AtomicReference<PoolStoppedException> stop = new AtomicReference<>();
    private volatile PoolStoppedException inputFailure;

    // Feeder state: touched only by the thread in feedLoop.
    private final WorkLoop feedLoop = new WorkLoop();
    private final Runnable feedPass = this::feedPass;
    private final AtomicReference<Object> grant = new AtomicReference<>();
    private CompletableFuture<Lease> pendingAcquire;
    private Lease heldLease;
    private long nextIndex;
    private volatile long accepted;
    private volatile boolean intakeClosed;

    private final Queue<Object> outbox = new ConcurrentLinkedQueue<>();
    private final WorkLoop deliveryLoop = new WorkLoop();
    private final Runnable deliveryPass = this::deliveryPass;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile long startNanos;
    private volatile Cancellable deadlineTimer;
    private volatile PoolStats finalStats;
    private final AtomicReference<PoolEngine<T, R>> self = new AtomicReference<>(this);

    /**
     * @param options   the run's options
     * @param source    the input
     * @param sink      where settled items go
     * @param async     the processor, or {@code null} when {@code blocking} is given
     * @param blocking  the blocking processor, or {@code null}
     */
    PoolEngine(PoolOptions options, Source<T> source, Sink<T, R> sink,
               ItemProcessor<? super T, R> async, BlockingProcessor<? super T, R> blocking) {
        this.options = options;
        this.source = source;
        this.sink = sink;
        this.ticker = options.ticker();
        this.scheduler = options.scheduler();
        Limit limit = options.limit();
        this.performance = new PerformanceRecorder(ticker);
        Limiter.Builder lb = Limiter.builder().name(options.name()).limit(limit).ticker(ticker).scheduler(scheduler)
                .adapt(options.adapt()).maxRetryAfter(options.retryPolicy().maxRetryAfter())
                .limitChangeListener(performance);
        options.traceListeners().forEach(lb::traceListener);
        this.limiter = lb.build();
        this.executor = AdaptiveExecutor.builder(limiter).retryPolicy(options.retryPolicy())
                .classifier(options.classifier()).taskTimeout(options.taskTimeout().orElse(null)).build();
        if (blocking != null) {
            this.ownedThreads = options.blockingExecutor().isPresent() ? null
                    : BlockingThreads.create(options.name(), limit.maxLimit());
            this.processor = BlockingAdapter.adapt(blocking,
                    ownedThreads != null ? ownedThreads : options.blockingExecutor().get());
        } else {
            this.ownedThreads = null;
            this.processor = async;
        }
    }

    /** Starts the run on the calling thread: the first items are dispatched before it returns. */
    void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("a run starts once");
        }
        startNanos = ticker.nanoTime();
        performance.start(limiter.limit(), startNanos);
        options.deadline().ifPresent(d -> deadlineTimer = scheduler.schedule(
                () -> stop(PoolStoppedException.Reason.DEADLINE, null), d));
        for (CompletionStage<?> c : options.cancellations()) {
            // The callback stays on the user's stage after the run; it must not keep the run
            // (and everything it collected) alive, so it reaches the run through a cleared ref.
            c.whenComplete((value, error) -> {
                PoolEngine<T, R> run = self.get();
                if (run != null) {
                    run.stop(PoolStoppedException.Reason.CANCELLED,
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

    Limiter limiter() {
        return limiter;
    }

    /**
     * Cancels the run.
     *
     * @param cause what to report as the cause, or {@code null}
     * @return {@code true} if this call stopped it
     */
    boolean cancel(Throwable cause) {
        return stop(PoolStoppedException.Reason.CANCELLED, cause);
    }

    // ---- feeding -----------------------------------------------------------------------

    void pump() {
        feedLoop.run(feedPass);
    }

    private void feedPass() {
        try {
            feed();
        } catch (Throwable bug) {
            // Nothing in feed() should throw; if something does (an Error too), end intake
            // cleanly rather than leave the loop stuck and the run unfinished.
            if (inputFailure == null) {
                inputFailure = new PoolStoppedException(PoolStoppedException.Reason.INPUT_FAILED, bug);
            }
            closeIntake(false);
        }
    }

    private void feed() {
        for (;;) {
            if (intakeClosed) {
                releaseStrayGrant();
                return;
            }
            if (stop.get() != null) {
                closeIntake(true);
                return;
            }
            if (heldLease == null && !obtainLease()) {
                return;
            }
            Object next = source.next();
            if (next == Source.WAIT) {
                // The item is on its way; give the slot back so that it is not held (and its
                // RTT not counted) while the input takes its time. The arrival pumps again.
                releaseHeld();
                return;
            }
            if (next == Source.END) {
                Throwable f = source.failure();
                if (f != null) {
                    inputFailure = new PoolStoppedException(PoolStoppedException.Reason.INPUT_FAILED, f);
                }
                closeIntake(false);
                return;
            }
            Lease lease = heldLease;
            heldLease = null;
            @SuppressWarnings("unchecked")
            T item = (T) next;
            dispatch(item, lease);
        }
    }

    /** @return {@code true} if {@link #heldLease} is now set; {@code false} to wait for news */
    private boolean obtainLease() {
        Object g = grant.getAndSet(null);
        if (g != null) {
            pendingAcquire = null;
            if (g instanceof Lease lease) {
                heldLease = lease;
                return true;
            }
            // The limiter refused (it only does once closed, which a run never does before it
            // ends): treat as the end of intake.
            closeIntake(false);
            return false;
        }
        if (pendingAcquire != null || !source.ready() || pending.get() >= pendingCap()) {
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
        int configured = options.maxPending();
        return configured > 0 ? configured : (int) Math.min(Integer.MAX_VALUE, 2L * limiter.limit());
    }

    private void dispatch(T item, Lease lease) {
        long index = nextIndex++;
        accepted = accepted + 1; // single writer: the feeder
        pending.incrementAndGet();
        Execution<R> e = executor.start(index, ctx -> call(item, ctx), lease);
        CompletableFuture<R> result = e.result();
        boolean tracked = !result.isDone();
        if (tracked) {
            live.put(index, e);
        }
        result.whenComplete((value, error) -> {
            if (tracked) {
                live.remove(index);
            }
            settle(index, item, value, error, e.attempts());
        });
        PoolStoppedException s = stop.get();
        if (s != null) {
            e.cancel(s); // the stop's sweep of live executions may have run before the put
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
        stop.compareAndSet(null, new PoolStoppedException(PoolStoppedException.Reason.STOPPED, cause));
    }

    private void closeIntake(boolean stopped) {
        CompletableFuture<Lease> f = pendingAcquire;
        if (f != null) {
            pendingAcquire = null;
            f.cancel(false);
            f.thenAccept(lease -> lease.release(Outcome.IGNORED)); // granted before the cancel
        }
        releaseHeld();
        releaseStrayGrant();
        if (stopped) {
            PoolStoppedException s = stop.get();
            source.drainAccepted(item -> {
                @SuppressWarnings("unchecked")
                T t = (T) item;
                rejectAccepted(t, s);
            });
        } else {
            source.cancel();
        }
        intakeClosed = true;
        deliver();
    }

    private void rejectAccepted(T item, PoolStoppedException cause) {
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
                // Deferred by one scheduler turn: this settle may run inside another item's
                // settle (a synchronous throw in the slot that item freed), and that item,
                // whose answer is already in, must end with its answer, not with the stop.
                scheduler.schedule(this::sweep, 0);
            }
        }
        deliver();
    }

    /** Drains the outbox into the sink (never concurrently), lets the feeder go on, and ends the run when all is in. */
    void deliver() {
        deliveryLoop.run(deliveryPass);
    }

    private void deliveryPass() {
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
            pump(); // the feeder's own loop: what it settles meanwhile only marks another pass here
        }
        tryFinish();
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

    private boolean stop(PoolStoppedException.Reason reason, Throwable cause) {
        if (finished.get()) {
            return false;
        }
        if (!stop.compareAndSet(null, new PoolStoppedException(reason, cause))) {
            return false;
        }
        sweep();
        return true;
    }

    /** Cancels every live execution with the stop's exception and lets the feeder close intake. */
    private void sweep() {
        PoolStoppedException s = stop.get();
        for (Execution<R> e : live.values()) {
            e.cancel(s);
        }
        pump();
    }

    private void tryFinish() {
        if (intakeClosed && pending.get() == 0 && outbox.isEmpty() && finished.compareAndSet(false, true)) {
            finish();
        }
    }

    private void finish() {
        long end = ticker.nanoTime();
        Cancellable timer = deadlineTimer;
        if (timer != null) {
            timer.cancel();
        }
        self.set(null);
        performance.finish(end);
        limiter.stop();
        source.close();
        PoolStats stats = stats(end);
        finalStats = stats;
        if (ownedThreads != null) {
            // No interrupt: every attempt has settled, so what is left are idle threads and
            // attempts already interrupted by their own cancellation.
            ownedThreads.shutdown();
        }
        sink.complete(stats);
    }

    PoolStats stats(long nowNanos) {
        LimiterStats ls = limiter.stats();
        PoolStoppedException s = stop.get();
        return new PoolStats(ls.limit(), ls.maxLimitReached(), ls.congestionEvents(), ls.rateLimitEvents(),
                retries.sum(), attempts.sum(), accepted, succeeded.sum(), failed.sum(),
                Duration.ofNanos(Math.max(0, nowNanos - startNanos)), performance.segments(nowNanos),
                performance.truncated(nowNanos), performance.totals(nowNanos), callbackFailures.sum(),
                Optional.ofNullable(s != null ? s : inputFailure));
    }

    PoolStats snapshot() {
        PoolStats done = finalStats;
        return done != null ? done : stats(ticker.nanoTime());
    }

    Scheduler scheduler() {
        return scheduler;
    }
}
