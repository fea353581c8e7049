package dev.adaptive.queue;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.AsyncTask;
import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.RejectedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.Nanos;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The machinery behind {@link ThrottledQueue}: a {@link Limiter} whose admission gate is the
 * queue's rate ({@link RateGate}), an {@link AdaptiveExecutor} on it that runs every task
 * (attempts, retries, task timeouts, classification, the Retry-After pause: the engine's one
 * implementation of the signal contract), and, here, only what is the queue's own: its
 * lifecycle, {@code maxQueueSize}, the jobs not yet finished, the backoff waits it freezes while
 * it holds, and its snapshot.
 *
 * <p>Every submitted task waits for its lease in the limiter's queue, retries ahead of fresh
 * tasks; the gate admits one start at a time, when the pacing, the back-off, the observation
 * window and the lifecycle allow it, and the limiter's limit (the {@code concurrencyLimit}, with
 * {@code concurrency} as its ceiling) bounds what runs at once.
 *
 * <p>Concurrency design: one monitor guards the queue's state and the gate's, so a snapshot is
 * consistent with every count the queue keeps. Nothing user-supplied that may re-enter or block
 * runs under it, nor any call into the limiter that may grant a lease: such effects (a limiter
 * told its gate changed, retries whose wait is over, an abort's cancellations, idle waiters
 * completed) are posted to an {@link Outbox} and run after the monitor is released. The
 * exceptions are the rate strategy (a pure function, documented as such) and the backoff's
 * random source. Methods named {@code ...Locked} must hold the monitor.
 */
final class QueueCore {

    private static final System.Logger LOG = System.getLogger(ThrottledQueue.class.getName());

    final Object lock = new Object();
    final Outbox outbox = new Outbox();
    /** Rate-change listeners' failures; the trace listeners' are the limiter's. */
    final LongAdder listenerFailures = new LongAdder();
    /**
     * The queue's own readings of its ticker and calls of its scheduler that threw and were
     * survived (its limiter counts its own); {@link QueueState#limitFailures()} adds the two.
     */
    private final LongAdder timeFailures = new LongAdder();
    /** A reading of the ticker that threw where the queue goes on without it. */
    final CallbackFailures tickerFailures;
    /** A timer the scheduler refused where the queue goes on without it. */
    final CallbackFailures schedulerFailures;
    /** A cancel of one of the queue's timers that threw: the timer, firing later, finds nothing to do. */
    final CallbackFailures cancelFailures;

    private final QueueConfig cfg;
    private final String name;
    private final Ticker ticker;
    private final RateGate gate;
    private final Limiter limiter;
    private final AdaptiveExecutor executor;
    private final DelayedRetries delayed;

    // ---- guarded by lock (status is also read without it, as a hint) ----
    private volatile QueueStatus status = QueueStatus.RUNNING;
    private RateStrategyException haltCause;
    private QueueAbortedException abortCause;
    /** Accepted and not finished: waiting for a lease, running, or waiting out a retry's backoff. */
    private final Set<Job<?>> live = new LinkedHashSet<>();
    /** A task threw StopPoolException: nothing starts until its job ends and the queue aborts. */
    private boolean stopping;
    private long nextIndex;
    private long retried;
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();

    QueueCore(QueueConfig cfg) {
        this.cfg = cfg;
        this.name = cfg.name();
        this.ticker = cfg.ticker();
        this.tickerFailures = new CallbackFailures(LOG, name, "queue's ticker", timeFailures);
        this.schedulerFailures = new CallbackFailures(LOG, name, "queue's scheduler", timeFailures);
        this.cancelFailures = new CallbackFailures(LOG, name, "queue's timer's cancel", timeFailures);
        this.delayed = new DelayedRetries(cfg.scheduler(), this::onRetryDue, schedulerFailures, cancelFailures);
        this.gate = new RateGate(this, cfg);
        boolean adaptive = cfg.concurrencyLimit() != null;
        Limiter.Builder b = Limiter.builder().name(name).ticker(ticker).scheduler(cfg.scheduler())
                .limit(adaptive ? cfg.concurrencyLimit() : FixedLimit.of(cfg.concurrency()))
                .maxRetryAfter(cfg.retryPolicy().maxRetryAfter()).retryBudget(cfg.retryBudget()).gate(gate)
                // The queue meets errors with its own rule: its rate steps down on too many
                // (RateController), which the limiter's outage probes would pre-empt.
                .outageProbe(Duration.ZERO);
        cfg.traceListeners().forEach(l -> b.traceListener(traced(l, adaptive)));
        this.limiter = b.build();
        if (adaptive && cfg.concurrency() < Integer.MAX_VALUE) {
            limiter.ceiling(cfg.concurrency());
        }
        this.executor = AdaptiveExecutor.builder(limiter).retryPolicy(cfg.retryPolicy()).classifier(cfg.classifier())
                .taskTimeout(cfg.taskTimeout()).build();
    }

    /**
     * @return what the user's trace listener hears: everything the limiter and the executor
     *         emit, except the limit's own news when the queue has no adaptive limit (a
     *         constant {@code concurrency} decides nothing) and the change its ceiling makes
     */
    private static TraceListener traced(TraceListener user, boolean adaptive) {
        return event -> {
            if (event instanceof TraceEvent.Decision || event instanceof TraceEvent.ConcurrencyChange) {
                if (!adaptive || ((event instanceof TraceEvent.ConcurrencyChange c) && "coordinator".equals(c.reason()))) {
                    return;
                }
            }
            user.onEvent(event);
        };
    }

    // ---- submit -----------------------------------------------------------------------------

    <R> CompletableFuture<R> submit(AsyncTask<R> task) {
        Objects.requireNonNull(task, "task");
        try {
            Job<R> job;
            synchronized (lock) {
                if (status == QueueStatus.ABORTED) {
                    return CompletableFuture.failedFuture(new QueueAbortedException(
                            "queue '" + name + "' is aborted; submit refused", abortCause.getCause()));
                }
                int unfinished = live.size();
                if (unfinished >= cfg.maxQueueSize()) {
                    return CompletableFuture.failedFuture(new RejectedException("queue '" + name + "' is full: "
                            + unfinished + " tasks accepted and unfinished (maxQueueSize=" + cfg.maxQueueSize() + ")"));
                }
                boolean restart = status == QueueStatus.STOPPED;
                long now = 0;
                if (restart) {
                    // Read before anything changes: a ticker that throws refuses this task, and
                    // the queue stays as it was (a job accepted first would be neither started
                    // nor ended, and would hold its room in maxQueueSize for good).
                    try {
                        now = ticker.nanoTime();
                    } catch (Throwable brokenTicker) {
                        return CompletableFuture.failedFuture(brokenTicker);
                    }
                }
                job = new Job<>(this, nextIndex++, task);
                live.add(job);
                if (restart) {
                    restartLocked(now);
                }
            }
            // Outside the lock: the limiter may grant at once and call the task.
            return job.start(executor);
        } finally {
            outbox.drain();
        }
    }

    // ---- what the executor tells the queue ----------------------------------------------------

    /**
     * A retry's backoff: frozen while the queue holds, so that a hold neither shortens nor
     * lengthens it. Its wait is armed by its delay; a reading of the ticker only marks when it
     * is due, for a hold to freeze what it has left. If the ticker throws there (counted), the
     * wait is armed all the same, and a hold freezes its whole delay: the retry comes at most
     * that much late, never before its backoff is over. Thrown instead, the job ended with its
     * last failure while {@code retried} counted a retry that never ran. A wait the scheduler
     * refuses throws (the executor then ends the job with its last failure) and is not counted
     * in {@code retried}: that retry never runs. A further wait of a retry the retry budget
     * refused at the end of its backoff is the same retry: it is waited and frozen as any, and
     * not counted again, so that {@code retried} stays the retries decided, as the limiter's
     * retries and the {@code Retry} events (counted, it added every refusal that left a retry).
     *
     * @param newRetry whether this is a retry's first wait, which {@code retried} counts
     */
    Cancellable delayRetry(Runnable retry, long delayNanos, boolean newRetry) {
        DelayedRetries.Wait w;
        synchronized (lock) {
            if (delayNanos <= 0) {
                w = null;
            } else if (status == QueueStatus.RUNNING) {
                w = armRetryLocked(retry, delayNanos);
            } else {
                w = delayed.add(retry, delayNanos, false, 0L); // frozen whole: no reading needed
            }
            // Once its wait is armed (or frozen): one the scheduler refused threw above.
            if (newRetry) {
                retried++;
            }
        }
        if (w == null) {
            retry.run(); // its acquisition is queued already, ahead of fresh tasks
            return null;
        }
        return () -> {
            synchronized (lock) {
                delayed.remove(w);
            }
            return true;
        };
    }

    /** @return the retry's wait, armed; a scheduler that refuses throws, with nothing kept */
    private DelayedRetries.Wait armRetryLocked(Runnable retry, long delayNanos) {
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // The scheduler times the wait by its delay; the reading only tells a hold what is
            // left of it. Without one, the wait is armed all the same (see delayRetry).
            tickerFailures.failed(brokenTicker);
            return delayed.addUnread(retry, delayNanos);
        }
        return delayed.add(retry, delayNanos, true, now);
    }

    private void onRetryDue(DelayedRetries.Wait w, Object token) {
        locked(() -> {
            if (delayed.takeIfCurrent(w, token)) {
                outbox.post(w.retry);
            }
        });
    }

    /** Before the attempt's slot is freed: hold every start, so the slot cannot go to the next task. */
    void stopRequested(Job<?> job, StopPoolException cause) {
        synchronized (lock) {
            // A job its caller withdrew while it ran has nothing to stop for.
            if (status != QueueStatus.ABORTED && !job.resultDone()) {
                job.stopCause = cause;
                stopping = true;
            }
        }
    }

    void finished(Job<?> job) {
        locked(() -> {
            live.remove(job);
            if (job.stopCause != null) {
                abortLocked(new QueueAbortedException("queue '" + name + "' aborted: a task threw StopPoolException",
                        job.stopCause));
            }
            checkIdleLocked();
        });
    }

    // ---- lifecycle ----------------------------------------------------------------------------

    void pause() {
        locked(() -> {
            if (status == QueueStatus.RUNNING) {
                long now = ticker.nanoTime(); // first: a throw reaches the caller with nothing changed
                status = QueueStatus.PAUSED;
                holdLocked(now);
            }
        });
    }

    void resume() {
        locked(() -> {
            if (status == QueueStatus.PAUSED || status == QueueStatus.STOPPED) {
                restartLocked(ticker.nanoTime());
                checkIdleLocked();
            }
        });
    }

    void stop() {
        locked(() -> {
            if (status == QueueStatus.RUNNING || status == QueueStatus.PAUSED) {
                long now = ticker.nanoTime(); // first: a throw reaches the caller with nothing changed
                status = QueueStatus.STOPPED;
                holdLocked(now);
            }
        });
    }

    void abort() {
        locked(() -> abortLocked(new QueueAbortedException("queue '" + name + "' was aborted", null)));
    }

    /**
     * What pause, stop and halt share: every timer of the queue's cleared, delays frozen, the
     * window dropped. Its reading is taken before the status changes: a hold without one would
     * be half-applied (the window kept, its timer then firing into a held queue and leaving it
     * open for good, so the rate never moved again).
     */
    private void holdLocked(long now) {
        delayed.freeze(now);
        gate.holdLocked();
        gateChangedLocked(); // the limiter drops its wake-up for the next slot
    }

    /** Back to running with fresh pacing; the back-off ends, a server's Retry-After does not. */
    private void restartLocked(long now) {
        status = QueueStatus.RUNNING;
        haltCause = null;
        gate.restartLocked();
        for (DelayedRetries.Wait w : delayed.thaw(now)) {
            outbox.post(w.retry);
        }
        gateChangedLocked();
    }

    /** The rate strategy failed: stopped, with the cause kept until a restart. */
    void haltLocked(RateStrategyException cause, long now) {
        status = QueueStatus.STOPPED;
        haltCause = cause;
        holdLocked(now);
        List<CompletableFuture<Void>> waiters = takeIdleWaitersLocked();
        outbox.post(() -> waiters.forEach(f -> f.completeExceptionally(cause)));
    }

    private void abortLocked(QueueAbortedException cause) {
        if (status == QueueStatus.ABORTED) {
            return;
        }
        status = QueueStatus.ABORTED;
        abortCause = cause;
        gate.abortLocked();
        delayed.clear();
        List<Job<?>> jobs = new ArrayList<>(live);
        live.clear();
        List<CompletableFuture<Void>> waiters = takeIdleWaitersLocked();
        outbox.post(() -> {
            // Each running attempt's cancellation fires and its slot is freed; each job fails.
            jobs.forEach(job -> job.cancel(cause));
            limiter.abort();
            waiters.forEach(f -> f.complete(null));
        });
    }

    /** Tells the limiter, once the lock is released, that its gate may answer differently now. */
    void gateChangedLocked() {
        outbox.post(limiter::gateChanged);
    }

    boolean runningLocked() {
        return status == QueueStatus.RUNNING;
    }

    /** @return whether the gate may admit a start: running, and no StopPoolException pending */
    boolean startsAllowedLocked() {
        return status == QueueStatus.RUNNING && !stopping;
    }

    boolean hasWorkLocked() {
        return !live.isEmpty();
    }

    CompletableFuture<Void> awaitIdle() {
        synchronized (lock) {
            // An abort ends the halt too (haltCause stays in the snapshot, as what halted the
            // queue): after abort() awaitIdle completes normally, as documented.
            if (haltCause != null && status != QueueStatus.ABORTED) {
                return CompletableFuture.failedFuture(haltCause);
            }
            if (live.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            idleWaiters.add(f);
            return f;
        }
    }

    private void checkIdleLocked() {
        if (!idleWaiters.isEmpty() && live.isEmpty()) {
            List<CompletableFuture<Void>> waiters = takeIdleWaitersLocked();
            outbox.post(() -> waiters.forEach(f -> f.complete(null)));
        }
    }

    private List<CompletableFuture<Void>> takeIdleWaitersLocked() {
        List<CompletableFuture<Void>> waiters = new ArrayList<>(idleWaiters);
        idleWaiters.clear();
        return waiters;
    }

    /** Runs {@code body} under the lock, then the effects it posted, without the lock. */
    void locked(Runnable body) {
        try {
            synchronized (lock) {
                body.run();
            }
        } finally {
            outbox.drain();
        }
    }

    // ---- views --------------------------------------------------------------------------------

    QueueState state() {
        synchronized (lock) {
            OptionalLong hold = holdUntilLocked();
            // Read after the hold: a reading of the ticker that threw there is counted, and these
            // stats must show it.
            LimiterStats ls = limiter.stats();
            return new QueueState(status, gate.rateLocked(), limiter.waiting(), gate.activeLocked(), delayed.size(),
                    gate.startedLocked(), gate.succeededLocked(), gate.failedLocked(), retried,
                    gate.increasesLocked(), gate.decreasesLocked(), limiter.limit(), hold, haltCause,
                    listenerFailures.sum() + ls.listenerFailures() + outbox.failures(),
                    ls.limitFailures() + timeFailures.sum());
        }
    }

    /**
     * @return the end of what holds dispatch now, the later of a back-off and the limiter's
     *         Retry-After pause; empty if neither holds. Without a reading (the ticker threw,
     *         counted), the ends of those still open: a back-off the gate has not yet seen end,
     *         and an open pause
     */
    private OptionalLong holdUntilLocked() {
        long pausedUntil = limiter.pausedUntilNanos();
        boolean paused = limiter.isRatePaused();
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // A view must answer, as the limiter's stats do (they show an open pause whole): a
            // face or a meter polls it where a throw is nobody's to handle. What has not been
            // seen to end is shown to its end, at most the whole wait, never a hold missed.
            tickerFailures.failed(brokenTicker);
            OptionalLong backOff = gate.backOffEndLocked();
            if (paused && (backOff.isEmpty() || Nanos.between(backOff.getAsLong(), pausedUntil) > 0)) {
                return OptionalLong.of(pausedUntil);
            }
            return backOff;
        }
        long hold = gate.backOffUntilLocked(now);
        // Saturated: a pause with no known end (Long.MAX_VALUE) is later than any hold.
        if (paused && Nanos.between(hold, pausedUntil) > 0) {
            hold = pausedUntil;
        }
        return hold == now ? OptionalLong.empty() : OptionalLong.of(hold);
    }

    int pending() {
        return limiter.waiting();
    }

    int rate() {
        synchronized (lock) {
            return gate.rateLocked();
        }
    }

    QueueStatus status() {
        return status;
    }

    QueueConfig config() {
        return cfg;
    }

    Limiter limiter() {
        return limiter;
    }
}
