package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.RejectedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.internal.Listeners;
import dev.adaptive.internal.Nanos;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * The machinery behind {@link ThrottledQueue}.
 *
 * <p>Concurrency design: one monitor guards every piece of state, and every decision (start,
 * settle, retry, rate change, lifecycle) is made under it, so a snapshot is always consistent
 * and no transition can interleave with another. Nothing user-supplied that may re-enter or
 * block runs under it: task calls, future completions and listener calls are posted to an
 * {@link Outbox} and run after the monitor is released. The exceptions are the rate strategy
 * (a pure function, documented as such) and the backoff's random source. Methods named
 * {@code ...Locked} must hold the monitor.
 */
final class QueueCore {

    private final QueueConfig cfg;
    private final String name;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final RetryPolicy retryPolicy;
    private final long intervalNanos;
    private final Limiter limiter;
    private final TraceListener[] traceListeners;
    private final Outbox outbox = new Outbox();
    /** The task timeout in nanoseconds, or 0 for none. */
    private final long taskTimeoutNanos;
    private final LongAdder listenerFailures = new LongAdder();
    private final Object lock = new Object();

    // ---- guarded by lock (status is also read without it, as a hint) ----
    private volatile QueueStatus status = QueueStatus.RUNNING;
    private RateStrategyException haltCause;
    private QueueAbortedException abortCause;
    private final ArrayDeque<Job<?>> fresh = new ArrayDeque<>();
    /** Retries whose delay is over; they go before fresh tasks, being older. */
    private final ArrayDeque<Job<?>> readyRetries = new ArrayDeque<>();
    private final DelayedRetries delayed;
    private final Set<Attempt<?>> running = new LinkedHashSet<>();
    private long nextIndex;
    private final Pacer pacer;
    private final RateController rates;
    private Cancellable dispatchTimer;
    private Object dispatchToken;
    private long dispatchAt;
    private boolean rateLimited;
    private long rateLimitedUntil;
    private boolean backingOff;
    private long backOffUntil;
    private long started;
    private long succeeded;
    private long failed;
    private long retried;
    private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();

    QueueCore(QueueConfig cfg) {
        this.cfg = cfg;
        this.name = cfg.name();
        this.ticker = cfg.ticker();
        this.scheduler = cfg.scheduler();
        this.retryPolicy = cfg.retryPolicy();
        this.intervalNanos = cfg.intervalNanos();
        this.taskTimeoutNanos = cfg.taskTimeout() == null ? 0 : Nanos.of(cfg.taskTimeout());
        this.traceListeners = cfg.traceListeners().toArray(new TraceListener[0]);
        this.pacer = new Pacer(intervalNanos, cfg.evenlySpaced());
        this.rates = new RateController(cfg, scheduler, this::onWindowEnd, pacer, outbox, listenerFailures);
        this.delayed = new DelayedRetries(scheduler, this::onRetryDue);
        if (cfg.concurrencyLimit() == null) {
            this.limiter = null;
        } else {
            Limiter.Builder b = Limiter.builder().name(name).limit(cfg.concurrencyLimit()).ticker(ticker)
                    .scheduler(scheduler);
            cfg.traceListeners().forEach(b::traceListener);
            this.limiter = b.build();
        }
    }

    // ---- submit and withdraw -------------------------------------------------------------

    <R> CompletableFuture<R> submit(AsyncTask<R> task) {
        Objects.requireNonNull(task, "task");
        Job<R> job;
        try {
            synchronized (lock) {
                if (status == QueueStatus.ABORTED) {
                    return CompletableFuture.failedFuture(new QueueAbortedException(
                            "queue '" + name + "' is aborted; submit refused", abortCause.getCause()));
                }
                int unfinished = unfinishedLocked();
                if (unfinished >= cfg.maxQueueSize()) {
                    return CompletableFuture.failedFuture(new RejectedException("queue '" + name + "' is full: "
                            + unfinished + " tasks accepted and unfinished (maxQueueSize=" + cfg.maxQueueSize() + ")"));
                }
                job = new Job<>(nextIndex++, task);
                fresh.add(job);
                long now = ticker.nanoTime();
                if (status == QueueStatus.STOPPED) {
                    restartLocked(now);
                }
                dispatchLocked(now);
            }
            // A caller who cancels (or completes) the future takes the task back.
            job.future.whenComplete((v, e) -> {
                if (!job.finishing) {
                    withdraw(job);
                }
            });
        } finally {
            outbox.drain();
        }
        return job.future;
    }

    private void withdraw(Job<?> job) {
        locked(() -> {
            if (fresh.remove(job) || readyRetries.remove(job) || delayed.remove(job)) {
                checkIdleLocked();
            }
            // A running attempt runs on; settleLocked sees the withdrawal and retries nothing.
        });
    }

    // ---- dispatch ------------------------------------------------------------------------

    /** Starts everything that may start now, and arms a timer for the next moment something may. */
    private void dispatchLocked(long now) {
        while (status == QueueStatus.RUNNING) {
            Job<?> job = peekReadyLocked();
            if (job == null) {
                return;
            }
            long hold = holdUntilLocked(now);
            if (hold - now > 0) {
                armDispatchLocked(hold, now);
                return;
            }
            ObservationWindow window = rates.window();
            if (window != null && cfg.adjustmentTiming() == AdjustmentTiming.SETTLED) {
                if (!window.closedForStarts && now - window.endNanos >= 0) {
                    window.closedForStarts = true; // the window's own timer may lag in real time
                }
                if (window.closedForStarts) {
                    if (window.outstanding > 0) {
                        return; // the last settlement decides, then dispatches
                    }
                    decideLocked(rates.close(), now);
                    continue;
                }
            }
            if (running.size() >= cfg.concurrency()) {
                return; // a settlement dispatches again
            }
            long at = pacer.earliest(now, rates.rate());
            if (at - now > 0) {
                armDispatchLocked(at, now);
                return;
            }
            Lease lease = null;
            if (limiter != null) {
                lease = limiter.tryAcquire().orElse(null);
                if (lease == null) {
                    return; // the limiter's limit moves only on a release, which dispatches again
                }
            }
            pollReadyLocked();
            startLocked(job, lease, now);
        }
    }

    private Job<?> peekReadyLocked() {
        while (!readyRetries.isEmpty() && readyRetries.peekFirst().withdrawn()) {
            readyRetries.pollFirst();
        }
        if (!readyRetries.isEmpty()) {
            return readyRetries.peekFirst();
        }
        while (!fresh.isEmpty() && fresh.peekFirst().withdrawn()) {
            fresh.pollFirst();
        }
        return fresh.peekFirst();
    }

    private void pollReadyLocked() {
        if (readyRetries.pollFirst() == null) {
            fresh.pollFirst();
        }
    }

    /** @return when the Retry-After pause and the back-off end, or {@code now} if neither holds */
    private long holdUntilLocked(long now) {
        long hold = now;
        if (rateLimited) {
            if (rateLimitedUntil - now > 0) {
                hold = rateLimitedUntil;
            } else {
                rateLimited = false;
            }
        }
        if (backingOff) {
            if (backOffUntil - now > 0) {
                hold = backOffUntil - hold > 0 ? backOffUntil : hold;
            } else {
                backingOff = false;
            }
        }
        return hold;
    }

    private void armDispatchLocked(long at, long now) {
        if (dispatchTimer != null) {
            if (dispatchAt - at <= 0) {
                return; // an earlier (or equal) wake-up is armed; it re-arms if still needed
            }
            dispatchTimer.cancel();
        }
        Object token = new Object();
        dispatchToken = token;
        dispatchAt = at;
        dispatchTimer = scheduler.schedule(() -> onDispatchTimer(token), at - now);
    }

    private void onDispatchTimer(Object token) {
        locked(() -> {
            if (dispatchToken != token) {
                return; // cancelled in real time after it had started
            }
            dispatchTimer = null;
            dispatchToken = null;
            dispatchLocked(ticker.nanoTime());
        });
    }

    private void cancelDispatchTimerLocked() {
        if (dispatchTimer != null) {
            dispatchTimer.cancel();
            dispatchTimer = null;
            dispatchToken = null;
        }
    }

    private <R> void startLocked(Job<R> job, Lease lease, long now) {
        int number = ++job.attempts;
        started++;
        pacer.started(now, rates.rate());
        ObservationWindow window = rates.started(now);
        Attempt<R> a = new Attempt<>(job, number, lease, now, running.size() + 1, window);
        running.add(a);
        if (taskTimeoutNanos > 0) {
            // Armed with the start, not when the task is called: the bound is on the slot held.
            a.timeoutTimer = scheduler.schedule(() -> onTimeout(a), taskTimeoutNanos);
        }
        outbox.post(() -> run(a));
    }

    // ---- running an attempt (outside the lock) --------------------------------------------

    private <R> void run(Attempt<R> a) {
        if (a.settled.get()) {
            return; // abandoned by an abort before it could start
        }
        if (traceListeners.length > 0) {
            deliver(new TraceEvent.TaskStart(a.startNanos, a.job.index, a.number, concurrencyLimit(), a.activeAtStart));
        }
        CompletionStage<R> stage;
        try {
            stage = a.job.task.call(a);
            if (stage == null) {
                throw new NullPointerException("task returned a null CompletionStage");
            }
        } catch (Throwable t) {
            // Anything, a StackOverflowError from the task's own recursion included, is this
            // attempt's failure, as in the pool: the task was accepted, so its future must end.
            settle(a, null, t);
            return;
        }
        stage.whenComplete((value, error) -> settle(a, value, error == null ? null : OutcomeClassifier.unwrap(error)));
    }

    /**
     * The attempt's own failure: whoever settles first wins, so a task that answers after this
     * changes nothing, and one that answered first leaves this timer without effect.
     */
    private <R> void onTimeout(Attempt<R> a) {
        if (!a.settled.compareAndSet(false, true)) {
            return;
        }
        TaskTimeoutException timeout = new TaskTimeoutException(cfg.taskTimeout());
        a.signal.fire(timeout); // runs the task's cleanup callbacks, outside the lock
        record(a, null, timeout);
    }

    private <R> void settle(Attempt<R> a, R value, Throwable error) {
        if (!a.settled.compareAndSet(false, true)) {
            return; // timed out or abandoned by an abort: a late answer is ignored
        }
        record(a, value, error);
    }

    /** Classifies outside the lock (user code), then records the outcome under it. */
    private <R> void record(Attempt<R> a, R value, Throwable error) {
        Verdict v = Verdict.of(cfg, a, value, error);
        if (a.lease != null) {
            a.lease.release(v.forLimiter());
        }
        locked(() -> settleLocked(a, value, v));
    }

    private <R> void settleLocked(Attempt<R> a, R value, Verdict v) {
        cancelTimeoutLocked(a);
        if (status == QueueStatus.ABORTED || !running.remove(a)) {
            return; // abandoned by an abort: no counter, no retry
        }
        long now = ticker.nanoTime();
        Job<R> job = a.job;
        Throwable cause = v.cause();
        emitLocked(new TraceEvent.TaskEnd(now, job.index, a.number, Math.max(0, now - a.startNanos), v.outcome(),
                v.error()));
        if (v.failed()) {
            failed++;
        } else {
            succeeded++;
        }
        // Paused or stopped, the window is gone: outcomes then do not move the rate.
        if (status == QueueStatus.RUNNING && rates.settled(a.window, v.failed(), v.countsAgainstRate())) {
            decideLocked(rates.close(), now);
        }
        if (!v.failed()) {
            finishLocked(job, value);
        } else if (job.withdrawn()) {
            // The caller took the task back while it ran: nothing to retry for.
        } else if (cause instanceof StopPoolException) {
            failLocked(job, cause);
            abortLocked(new QueueAbortedException("queue '" + name + "' aborted: a task threw StopPoolException", cause));
            return;
        } else if (v.outcome() instanceof Outcome.RateLimited r) {
            rateLimitedLocked(job, a.number, r, cause, now);
        } else if (v.retryWanted()) {
            job.retriesUsed++;
            retried++;
            Duration delay = retryPolicy.delayBeforeRetry(job.retriesUsed);
            emitLocked(new TraceEvent.Retry(now, job.index, a.number, cause, delay,
                    Nanos.plus(now, Nanos.of(delay)), false));
            delayRetryLocked(job, delay, now);
        } else {
            failLocked(job, cause);
        }
        dispatchLocked(now);
        checkIdleLocked();
    }

    private void rateLimitedLocked(Job<?> job, int attempt, Outcome.RateLimited r, Throwable cause, long now) {
        Duration wait = retryPolicy.cappedRetryAfter(r.retryAfter());
        long until = wait.isZero() ? now : openRetryAfterLocked(now, wait);
        if (job.rateLimitRetriesUsed >= retryPolicy.maxRateLimitRetries()) {
            failLocked(job, cause);
            return;
        }
        job.rateLimitRetriesUsed++;
        retried++;
        if (!wait.isZero()) {
            // The hold keeps it back; no jitter may shorten the wait the server asked for.
            emitLocked(new TraceEvent.Retry(now, job.index, attempt, cause, Duration.ofNanos(Nanos.between(now, until)),
                    until, true));
            readyRetries.add(job);
        } else {
            Duration delay = retryPolicy.delayBeforeRetry(job.rateLimitRetriesUsed);
            emitLocked(new TraceEvent.Retry(now, job.index, attempt, cause, delay, Nanos.plus(now, Nanos.of(delay)),
                    true));
            delayRetryLocked(job, delay, now);
        }
    }

    private static void cancelTimeoutLocked(Attempt<?> a) {
        if (a.timeoutTimer != null) {
            a.timeoutTimer.cancel();
            a.timeoutTimer = null;
        }
    }

    /** @return the end of the Retry-After pause, which may already have been later */
    private long openRetryAfterLocked(long now, Duration wait) {
        long until = Nanos.plus(now, Nanos.of(wait));
        if (!rateLimited || until - rateLimitedUntil > 0) {
            rateLimited = true;
            rateLimitedUntil = until;
            emitLocked(new TraceEvent.RatePause(now, until, wait));
        }
        return rateLimitedUntil;
    }

    // ---- delayed retries -----------------------------------------------------------------

    private void delayRetryLocked(Job<?> job, Duration delay, long now) {
        long nanos = Nanos.of(delay);
        if (nanos <= 0) {
            readyRetries.add(job);
        } else {
            delayed.add(job, nanos, status == QueueStatus.RUNNING, now);
        }
    }

    private void onRetryDue(Job<?> job, Object token) {
        locked(() -> {
            if (!delayed.takeIfCurrent(job, token)) {
                return; // frozen, withdrawn or aborted meanwhile
            }
            readyRetries.add(job);
            dispatchLocked(ticker.nanoTime());
        });
    }

    // ---- observation and rate decisions --------------------------------------------------

    private void onWindowEnd(ObservationWindow w) {
        locked(() -> {
            if (!rates.isOpen(w) || status != QueueStatus.RUNNING) {
                return;
            }
            long now = ticker.nanoTime();
            if (cfg.adjustmentTiming() == AdjustmentTiming.INTERVAL) {
                rates.close();
                if (!decideLocked(w, now)) {
                    return;
                }
                if (hasWorkLocked()) {
                    rates.open(w.endNanos, now); // windows follow each other while there is work
                }
            } else {
                w.closedForStarts = true;
                if (w.outstanding == 0) {
                    decideLocked(rates.close(), now);
                }
            }
            dispatchLocked(now);
            checkIdleLocked();
        });
    }

    /** @return {@code false} if the strategy failed and the queue halted */
    private boolean decideLocked(ObservationWindow w, long now) {
        RateDecision d;
        try {
            d = rates.decide(w, now);
        } catch (RateStrategyException e) {
            haltLocked(e, now);
            return false;
        }
        // A window in which nothing started or settled is no news: backing off on it would renew
        // the back-off for ever (an interval of back-off is itself such a window).
        if (d.shouldBackOff() && cfg.backOff() && w.sawAnything()) {
            backingOff = true;
            backOffUntil = Nanos.plus(now, intervalNanos);
        }
        return true;
    }

    // ---- lifecycle -----------------------------------------------------------------------

    void pause() {
        locked(() -> {
            if (status != QueueStatus.RUNNING) {
                return;
            }
            status = QueueStatus.PAUSED;
            holdLocked(ticker.nanoTime());
        });
    }

    void resume() {
        locked(() -> {
            if (status != QueueStatus.PAUSED && status != QueueStatus.STOPPED) {
                return;
            }
            long now = ticker.nanoTime();
            restartLocked(now);
            dispatchLocked(now);
            checkIdleLocked();
        });
    }

    void stop() {
        locked(() -> {
            if (status != QueueStatus.RUNNING && status != QueueStatus.PAUSED) {
                return;
            }
            status = QueueStatus.STOPPED;
            holdLocked(ticker.nanoTime());
        });
    }

    void abort() {
        locked(() -> {
            abortLocked(new QueueAbortedException("queue '" + name + "' was aborted", null));
        });
    }

    /** What pause, stop and halt share: every timer cleared, delays frozen, the window dropped. */
    private void holdLocked(long now) {
        delayed.freeze(now);
        cancelDispatchTimerLocked();
        rates.close();
    }

    /** Back to running with fresh pacing; the back-off ends, a server's Retry-After does not. */
    private void restartLocked(long now) {
        status = QueueStatus.RUNNING;
        haltCause = null;
        backingOff = false;
        pacer.reset();
        readyRetries.addAll(delayed.thaw(now));
    }

    private void haltLocked(RateStrategyException cause, long now) {
        status = QueueStatus.STOPPED;
        haltCause = cause;
        holdLocked(now);
        List<CompletableFuture<Void>> waiters = new ArrayList<>(idleWaiters);
        idleWaiters.clear();
        outbox.post(() -> waiters.forEach(f -> f.completeExceptionally(cause)));
    }

    private void abortLocked(QueueAbortedException cause) {
        if (status == QueueStatus.ABORTED) {
            return;
        }
        status = QueueStatus.ABORTED;
        abortCause = cause;
        cancelDispatchTimerLocked();
        rates.close();
        List<Job<?>> jobs = new ArrayList<>(readyRetries);
        jobs.addAll(fresh);
        jobs.addAll(delayed.clear());
        readyRetries.clear();
        fresh.clear();
        List<Attempt<?>> abandoned = new ArrayList<>(running);
        running.clear();
        for (Attempt<?> a : abandoned) {
            a.settled.set(true); // a later settlement or timeout is ignored
            cancelTimeoutLocked(a);
        }
        List<CompletableFuture<Void>> waiters = new ArrayList<>(idleWaiters);
        idleWaiters.clear();
        outbox.post(() -> {
            for (Attempt<?> a : abandoned) {
                a.signal.fire(cause);
                if (a.lease != null) {
                    a.lease.release(Outcome.IGNORED); // an abort says nothing about capacity
                }
                failNow(a.job, cause);
            }
            jobs.forEach(job -> failNow(job, cause));
            waiters.forEach(f -> f.complete(null));
        });
    }

    CompletableFuture<Void> awaitIdle() {
        synchronized (lock) {
            if (haltCause != null) {
                return CompletableFuture.failedFuture(haltCause);
            }
            if (isIdleLocked()) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            idleWaiters.add(f);
            return f;
        }
    }

    private void checkIdleLocked() {
        if (!idleWaiters.isEmpty() && isIdleLocked()) {
            List<CompletableFuture<Void>> waiters = new ArrayList<>(idleWaiters);
            idleWaiters.clear();
            outbox.post(() -> waiters.forEach(f -> f.complete(null)));
        }
    }

    private boolean isIdleLocked() {
        return fresh.isEmpty() && readyRetries.isEmpty() && delayed.isEmpty() && running.isEmpty();
    }

    private boolean hasWorkLocked() {
        return !isIdleLocked();
    }

    private int unfinishedLocked() {
        return fresh.size() + readyRetries.size() + delayed.size() + running.size();
    }

    // ---- completing jobs -----------------------------------------------------------------

    private <R> void finishLocked(Job<R> job, R value) {
        outbox.post(() -> {
            job.finishing = true;
            job.future.complete(value);
        });
    }

    private void failLocked(Job<?> job, Throwable cause) {
        outbox.post(() -> failNow(job, cause));
    }

    private static void failNow(Job<?> job, Throwable cause) {
        job.finishing = true;
        job.future.completeExceptionally(cause);
    }

    /** Runs {@code body} under the lock, then the effects it posted, without the lock. */
    private void locked(Runnable body) {
        try {
            synchronized (lock) {
                body.run();
            }
        } finally {
            outbox.drain();
        }
    }

    // ---- views and tracing ---------------------------------------------------------------

    QueueState state() {
        synchronized (lock) {
            long now = ticker.nanoTime();
            long hold = now;
            if (rateLimited && rateLimitedUntil - hold > 0) {
                hold = rateLimitedUntil;
            }
            if (backingOff && backOffUntil - hold > 0) {
                hold = backOffUntil;
            }
            return new QueueState(status, rates.rate(), fresh.size() + readyRetries.size(), running.size(),
                    delayed.size(), started, succeeded, failed, retried, rates.increases(), rates.decreases(),
                    concurrencyLimit(),
                    hold == now ? OptionalLong.empty() : OptionalLong.of(hold), haltCause,
                    listenerFailures.sum() + outbox.failures());
        }
    }

    int pending() {
        synchronized (lock) {
            return fresh.size() + readyRetries.size();
        }
    }

    int rate() {
        synchronized (lock) {
            return rates.rate();
        }
    }

    QueueStatus status() {
        return status;
    }

    /** Thread-safe without the lock: both parts are. */
    int concurrencyLimit() {
        return limiter == null ? cfg.concurrency() : Math.min(cfg.concurrency(), limiter.limit());
    }

    QueueConfig config() {
        return cfg;
    }

    private void emitLocked(TraceEvent event) {
        if (traceListeners.length > 0) {
            outbox.post(() -> deliver(event));
        }
    }

    private void deliver(TraceEvent event) {
        Listeners.tellAll(traceListeners, event, TraceListener::onEvent, listenerFailures);
    }
}
