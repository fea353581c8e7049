package dev.adaptive;

import dev.adaptive.internal.Nanos;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Sample;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The machinery behind {@link Limiter}. Kept package-private so that nothing outside the
 * engine depends on it.
 *
 * <p>Concurrency design: {@code inflight} is one atomic counter raised by compare-and-set
 * against the effective limit. Waiters sit in a lock-free queue; whoever changes something a
 * waiter cares about (a release, a resume, a raised limit, a new waiter) calls
 * {@link #drain()}, and a work-in-progress counter lets exactly one thread hand out slots at a
 * time while the others just mark that another pass is needed. That makes hand-off FIFO,
 * avoids lost wake-ups, and keeps user callbacks (which run when a waiter's future
 * completes) from recursing into the drain.
 */
final class LimiterCore {

    private final String name;
    private final Limit algorithm;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Adapt adapt;
    private final int maxWaiters;
    private final long waitTimeoutNanos; // 0 = none
    private final long maxRetryAfterNanos;
    private final TraceListener[] traceListeners;
    private final LimitChangeListener[] limitListeners;
    // Added at run time (fleet members attach after build); pauses are rare, so copy-on-write.
    private final List<Consumer<TraceEvent.RatePause>> pauseListeners = new CopyOnWriteArrayList<>();

    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicReference<LimitState> limitState;
    private volatile int localLimit;
    private volatile int ceiling = Integer.MAX_VALUE;
    private volatile int effectiveLimit;
    private final AtomicInteger maxLimitReached;

    private volatile LimiterState state = LimiterState.RUNNING;
    // One flag for the hot path: open only while RUNNING (or STOPPED, for queued waiters) and
    // outside any Retry-After pause.
    private volatile boolean ratePaused;
    private final AtomicLong pausedUntil = new AtomicLong();

    private final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger wip = new AtomicInteger();

    private final LongAdder congestionEvents = new LongAdder();
    private final LongAdder rateLimitEvents = new LongAdder();
    private final LongAdder listenerFailures = new LongAdder();
    // Lowest success RTT seen; fed to the algorithm instead of the real RTT when latency
    // adaptation is off, so the algorithm sees a flat RTT.
    private volatile long floorRtt = Long.MAX_VALUE;

    LimiterCore(String name, Limit algorithm, Ticker ticker, Scheduler scheduler, Adapt adapt, int maxWaiters,
                Duration waitTimeout, Duration maxRetryAfter, List<TraceListener> traceListeners,
                List<LimitChangeListener> limitListeners) {
        this.name = name;
        this.algorithm = algorithm;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.adapt = adapt;
        this.maxWaiters = maxWaiters;
        this.waitTimeoutNanos = waitTimeout == null ? 0 : Nanos.of(waitTimeout);
        this.maxRetryAfterNanos = Nanos.of(maxRetryAfter);
        this.traceListeners = traceListeners.toArray(new TraceListener[0]);
        this.limitListeners = limitListeners.toArray(new LimitChangeListener[0]);
        LimitState initial = algorithm.initialState();
        this.limitState = new AtomicReference<>(initial);
        this.localLimit = initial.limit();
        this.effectiveLimit = initial.limit();
        this.maxLimitReached = new AtomicInteger(initial.limit());
    }

    // ---- acquisition -------------------------------------------------------------------

    Lease tryAcquire() {
        if (state != LimiterState.RUNNING || ratePaused || waiting.get() > 0) {
            return null;
        }
        int n = tryIncrement();
        return n < 0 ? null : new LeaseImpl(this, ticker.nanoTime(), n);
    }

    CompletableFuture<Lease> acquire() {
        LimiterState s = state;
        if (s == LimiterState.STOPPED || s == LimiterState.ABORTED) {
            return CompletableFuture.failedFuture(closed(s));
        }
        if (s == LimiterState.RUNNING && !ratePaused && waiting.get() == 0) {
            int n = tryIncrement();
            if (n >= 0) {
                return CompletableFuture.completedFuture(new LeaseImpl(this, ticker.nanoTime(), n));
            }
        }
        if (waiting.get() >= maxWaiters) {
            return CompletableFuture.failedFuture(new RejectedException(
                    "limiter '" + name + "' has " + maxWaiters + " waiters queued (maxWaiters=" + maxWaiters + ")"));
        }
        Waiter w = new Waiter();
        waiting.incrementAndGet();
        waiters.offer(w);
        // A waiter that leaves early (timeout, cancel, abort) removes itself from the queue.
        w.future.whenComplete((lease, error) -> {
            if (error != null && waiters.remove(w)) {
                waiting.decrementAndGet();
            }
        });
        if (waitTimeoutNanos > 0) {
            w.timeout = scheduler.schedule(() -> w.future.completeExceptionally(new AcquireTimeoutException(
                    "limiter '" + name + "': no slot within waitTimeout=" + Duration.ofNanos(waitTimeoutNanos))),
                    waitTimeoutNanos);
        }
        // The state may have changed between the check and the enqueue.
        LimiterState now = state;
        if (now == LimiterState.ABORTED) {
            w.future.completeExceptionally(closed(now));
        }
        drain();
        return w.future;
    }

    /** @return the new in-flight count, or -1 if full */
    private int tryIncrement() {
        for (;;) {
            int n = inflight.get();
            // The ceiling is read directly too, so a lowered fleet share binds at once, even
            // while a concurrent fold is still publishing the effective limit.
            if (n >= effectiveLimit || n >= ceiling) {
                return -1;
            }
            if (inflight.compareAndSet(n, n + 1)) {
                return n + 1;
            }
        }
    }

    private boolean gateOpen() {
        LimiterState s = state;
        return (s == LimiterState.RUNNING || s == LimiterState.STOPPED) && !ratePaused;
    }

    void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        for (;;) {
            while (gateOpen() && waiting.get() > 0) {
                int n = tryIncrement();
                if (n < 0) {
                    break;
                }
                Waiter w = waiters.poll();
                if (w == null) {
                    inflight.decrementAndGet();
                    break;
                }
                waiting.decrementAndGet();
                LeaseImpl lease = new LeaseImpl(this, ticker.nanoTime(), n);
                if (w.timeout != null) {
                    w.timeout.cancel();
                }
                if (!w.future.complete(lease)) {
                    // Timed out or cancelled in the meantime: the slot goes back, unsampled.
                    lease.giveBack();
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    // ---- release -----------------------------------------------------------------------

    void onRelease(LeaseImpl lease, Outcome outcome) {
        long now = ticker.nanoTime();
        long rtt = Math.max(0, now - lease.startNanos());
        if (outcome instanceof Outcome.RateLimited r) {
            rateLimitEvents.increment();
            // Close the gate before the slot is freed, so the drain below cannot dispatch into
            // the window the server just announced.
            if (!r.retryAfter().isZero()) {
                pauseFor(r.retryAfter(), now);
            }
        } else if (outcome instanceof Outcome.Dropped) {
            congestionEvents.increment();
        }
        fold(lease, outcome, now, rtt);
        inflight.decrementAndGet();
        if (waiting.get() > 0) {
            drain();
        }
    }

    /** Returns a slot without a sample: for leases never handed to anyone. */
    void giveBack() {
        inflight.decrementAndGet();
        if (waiting.get() > 0) {
            drain();
        }
    }

    private void fold(LeaseImpl lease, Outcome outcome, long now, long rtt) {
        if (outcome instanceof Outcome.Ignored
                || (outcome instanceof Outcome.Dropped && !adapt.onErrors())
                || (outcome instanceof Outcome.RateLimited && !adapt.onRateLimit())) {
            return;
        }
        if (outcome instanceof Outcome.Success) {
            if (rtt > 0 && rtt < floorRtt) {
                floorRtt = rtt;
            }
            if (!adapt.onLatency()) {
                long floor = floorRtt;
                rtt = floor == Long.MAX_VALUE ? rtt : floor;
            }
        }
        Sample sample = new Sample(lease.startNanos(), rtt, lease.inflightAtStart(), outcome);
        LimitState before;
        LimitState after;
        do {
            before = limitState.get();
            after = algorithm.update(before, sample);
        } while (after != before && !limitState.compareAndSet(before, after));
        if (traceListeners.length > 0) {
            emit(new TraceEvent.Decision(now, algorithm.name(), after.limit(), after.metrics(), sample));
        }
        if (after.limit() != before.limit()) {
            onLimitChanged(before.limit(), after, outcome instanceof Outcome.RateLimited ? "rate-limit" : "sample", now);
        }
    }

    private void onLimitChanged(int from, LimitState after, String reason, long now) {
        // Publish the newest state's limit, not necessarily ours: another thread may have
        // folded a later sample between our CAS and this line.
        int oldEffective = effectiveLimit;
        int local;
        int bound;
        int newEffective;
        // A fold and a ceiling change racing here could otherwise leave the older of the two
        // results in place (a ceiling of 10 overwritten by a fold's min(local, 15)): whoever
        // writes re-reads the inputs afterwards and writes again if either moved meanwhile.
        do {
            local = limitState.get().limit();
            bound = ceiling;
            newEffective = Math.min(local, bound);
            localLimit = local;
            effectiveLimit = newEffective;
        } while (limitState.get().limit() != local || ceiling != bound);
        maxLimitReached.accumulateAndGet(newEffective, Math::max);
        if (newEffective != oldEffective) {
            if (traceListeners.length > 0) {
                emit(new TraceEvent.ConcurrencyChange(now, oldEffective, newEffective, reason));
            }
            for (LimitChangeListener l : limitListeners) {
                try {
                    l.onChange(oldEffective, newEffective);
                } catch (Throwable t) {
                    listenerFailures.increment();
                }
            }
            if (newEffective > oldEffective && waiting.get() > 0) {
                drain();
            }
        }
    }

    void ceiling(int c) {
        ceiling = c;
        onLimitChanged(effectiveLimit, limitState.get(), "coordinator", ticker.nanoTime());
    }

    int ceilingValue() {
        return ceiling;
    }

    void addRatePauseListener(Consumer<TraceEvent.RatePause> listener) {
        pauseListeners.add(listener);
    }

    boolean removeRatePauseListener(Consumer<TraceEvent.RatePause> listener) {
        // By identity: two equal lambdas registered separately must be removable one by one.
        for (Consumer<TraceEvent.RatePause> l : pauseListeners) {
            if (l == listener) {
                return pauseListeners.remove(l);
            }
        }
        return false;
    }

    // ---- Retry-After pauses ------------------------------------------------------------

    void pauseFor(Duration retryAfter) {
        if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            return;
        }
        pauseFor(retryAfter, ticker.nanoTime());
    }

    private void pauseFor(Duration retryAfter, long now) {
        long wait = Math.min(Nanos.of(retryAfter), maxRetryAfterNanos);
        openPause(now, now + wait);
    }

    void pauseUntil(long untilNanos) {
        long now = ticker.nanoTime();
        if (untilNanos - now <= 0) {
            return;
        }
        openPause(now, now + Math.min(untilNanos - now, maxRetryAfterNanos));
    }

    private void openPause(long now, long until) {
        long prev;
        do {
            prev = pausedUntil.get();
            if (ratePaused && prev - until >= 0) {
                return; // an open pause already covers it
            }
        } while (!pausedUntil.compareAndSet(prev, until));
        ratePaused = true;
        if (traceListeners.length > 0 || !pauseListeners.isEmpty()) {
            TraceEvent.RatePause event = new TraceEvent.RatePause(now, until, Duration.ofNanos(until - now));
            emit(event);
            for (Consumer<TraceEvent.RatePause> l : pauseListeners) {
                try {
                    l.accept(event);
                } catch (Throwable t) {
                    listenerFailures.increment();
                }
            }
        }
        scheduler.schedule(this::maybeEndPause, until - now);
    }

    private void maybeEndPause() {
        long now = ticker.nanoTime();
        long until = pausedUntil.get();
        if (!ratePaused) {
            return;
        }
        if (until - now > 0) {
            // Extended since this task was scheduled; the later task will reopen.
            return;
        }
        ratePaused = false;
        // A pause extended between the read and the write above must win.
        if (pausedUntil.get() != until) {
            ratePaused = true;
            return;
        }
        drain();
    }

    // ---- lifecycle ---------------------------------------------------------------------

    void pause() {
        synchronized (this) {
            if (state == LimiterState.RUNNING) {
                state = LimiterState.PAUSED;
            }
        }
    }

    void resume() {
        synchronized (this) {
            if (state != LimiterState.PAUSED) {
                return;
            }
            state = LimiterState.RUNNING;
        }
        drain();
    }

    void stop() {
        synchronized (this) {
            if (state == LimiterState.ABORTED) {
                return;
            }
            state = LimiterState.STOPPED;
        }
        drain();
    }

    void abort() {
        synchronized (this) {
            state = LimiterState.ABORTED;
        }
        Waiter w;
        while ((w = waiters.poll()) != null) {
            waiting.decrementAndGet();
            if (w.timeout != null) {
                w.timeout.cancel();
            }
            w.future.completeExceptionally(closed(LimiterState.ABORTED));
        }
    }

    private LimiterClosedException closed(LimiterState s) {
        return new LimiterClosedException("limiter '" + name + "' is " + s.name().toLowerCase());
    }

    // ---- views -------------------------------------------------------------------------

    int limit() {
        // Never shows a limit above a ceiling just lowered, even while a fold re-publishes.
        return Math.min(effectiveLimit, ceiling);
    }

    int localLimit() {
        return localLimit;
    }

    int inflight() {
        return inflight.get();
    }

    int waiting() {
        return waiting.get();
    }

    LimiterState state() {
        return state;
    }

    boolean isRatePaused() {
        return ratePaused;
    }

    long pausedUntilNanos() {
        return ratePaused ? pausedUntil.get() : 0;
    }

    LimiterStats stats() {
        return new LimiterStats(limit(), inflight.get(), waiting.get(), maxLimitReached.get(),
                congestionEvents.sum(), rateLimitEvents.sum(), ratePaused, state, listenerFailures.sum());
    }

    Limit algorithm() {
        return algorithm;
    }

    LimitState limitState() {
        return limitState.get();
    }

    Ticker ticker() {
        return ticker;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    String name() {
        return name;
    }

    void emit(TraceEvent event) {
        for (TraceListener l : traceListeners) {
            try {
                l.onEvent(event);
            } catch (Throwable t) {
                listenerFailures.increment();
            }
        }
    }

    boolean tracing() {
        return traceListeners.length > 0;
    }

    private static final class Waiter {
        final CompletableFuture<Lease> future = new CompletableFuture<>();
        volatile Cancellable timeout;
    }
}
