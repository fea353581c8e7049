package dev.adaptive;

import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.Listeners;
import dev.adaptive.internal.Nanos;
import dev.adaptive.internal.SlotReturn;
import dev.adaptive.internal.WorkLoop;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Sample;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
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
 *
 * <p>A waiter that leaves early (timeout, cancel) does not search the queue for itself: it
 * marks itself gone, and the drain skips it when it reaches it. So leaving is O(1) and an
 * abort of n waiters O(n). The gone nodes left behind are swept out once they outnumber the
 * live waiters (plus a slack), so the sweep's cost, spread over the leavings that caused it,
 * is O(1) each, and the queue never holds more than about twice the live waiters.
 *
 * <p>A Retry-After pause is one immutable {@link Pause} swapped by compare-and-set: opening
 * or extending it, and ending it, each change that one reference, so two pauses opened at
 * once cannot leave the shorter end in place, and whether dispatch is paused (the reference
 * being non-null) can never disagree with the end.
 *
 * <p>The {@link Limit} is user code. Its limit is kept within [max(1, minLimit),
 * max(that, maxLimit)], and a fold that throws or returns {@code null} keeps the state the
 * limiter had; both are counted in {@link LimiterStats#limitFailures()}.
 */
final class LimiterCore {

    /** Pauses opened and closed (INFO), limit changes (DEBUG), user callbacks that threw (WARNING once, then DEBUG). */
    static final String LOGGER_NAME = "dev.adaptive.limiter";
    private static final System.Logger LOG = System.getLogger(LOGGER_NAME);

    private final String name;
    private final Limit algorithm;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Adapt adapt;
    private final int maxWaiters;
    private final long waitTimeoutNanos; // 0 = none
    private final long maxRetryAfterNanos;
    // Replaced, never changed: listeners added at run time (a metrics binder) are rare.
    private volatile TraceListener[] traceListeners;
    /** The kinds of trace event some listener wants: bits of {@link #TRACE_KINDS}; replaced with the listeners. */
    private volatile int tracedKinds;

    /** The trace event kinds, by bit position, for {@link #traces(int)}. */
    static final List<Class<? extends TraceEvent>> TRACE_KINDS = List.of(TraceEvent.TaskStart.class,
            TraceEvent.TaskEnd.class, TraceEvent.ConcurrencyChange.class, TraceEvent.Decision.class,
            TraceEvent.Retry.class, TraceEvent.RatePause.class, TraceEvent.RetryRefused.class,
            TraceEvent.QuotaHold.class, TraceEvent.Outage.class);
    static final int TASK_START = 1;
    static final int TASK_END = 1 << 1;
    static final int CONCURRENCY_CHANGE = 1 << 2;
    static final int DECISION = 1 << 3;
    static final int RETRY = 1 << 4;
    static final int RATE_PAUSE = 1 << 5;
    static final int RETRY_REFUSED = 1 << 6;
    static final int QUOTA_HOLD = 1 << 7;
    static final int OUTAGE = 1 << 8;
    private final LimitChangeListener[] limitListeners;
    // Added at run time (fleet members attach after build); pauses are rare, so copy-on-write.
    private final List<Consumer<TraceEvent.RatePause>> pauseListeners = new CopyOnWriteArrayList<>();
    // Fleet members' hints to report at once: the local limit moved, calls began to wait.
    private final List<LimitChangeListener> localLimitListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> queueListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> idleListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<TraceEvent.Outage>> outageListeners = new CopyOnWriteArrayList<>();

    private static final VarHandle PAUSE;

    static {
        try {
            PAUSE = MethodHandles.lookup().findVarHandle(LimiterCore.class, "pause", Pause.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Gone waiters tolerated beyond the live ones before a sweep: sweeps of tiny queues would cost more than they free. */
    static final int SWEEP_SLACK = 64;

    private final int minLimit;
    private final int maxLimit;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicReference<LimitState> limitState;
    private volatile int localLimit;
    private volatile int ceiling = Integer.MAX_VALUE;
    private volatile int othersInflight;
    private volatile int effectiveLimit;
    private final AtomicInteger maxLimitReached;

    private volatile LimiterState state = LimiterState.RUNNING;
    // The open Retry-After pause, or null. Read on the hot path: dispatch goes on only while
    // RUNNING (or STOPPED, for queued waiters) and while this is null.
    @SuppressWarnings("unused") // written through PAUSE
    private volatile Pause pause;

    private final Queue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    /** Acquisitions that go before {@link #waiters}: retries, which are older work than fresh calls. */
    private final Queue<Waiter> aheadWaiters = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final WorkLoop drainLoop = new WorkLoop(Runnable::run, () -> {
        drainPass();
        return true;
    });
    /** Waiters that left on their own since the last sweep; their nodes may still be queued. */
    private final AtomicInteger departed = new AtomicInteger();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    /** Nodes the sweeps looked at, in all; only the sweeping thread writes it. */
    private volatile long sweptNodes;

    private final LongAdder congestionEvents = new LongAdder();
    private final LongAdder rateLimitEvents = new LongAdder();
    private final LongAdder listenerFailures = new LongAdder();
    private final LongAdder limitFailures = new LongAdder();
    private final LongAdder successes = new LongAdder();
    private final LongAdder ignored = new LongAdder();
    private final LongAdder errorRetries = new LongAdder();
    private final LongAdder timeoutRetries = new LongAdder();
    private final LongAdder rateLimitRetries = new LongAdder();
    private final LongAdder pausesOpened = new LongAdder();
    private final LongAdder limitIncreases = new LongAdder();
    private final LongAdder limitDecreases = new LongAdder();
    private final LongAdder shed = new LongAdder();
    private final LongAdder classifierFailureCount = new LongAdder();
    /** The last wait a server asked for, in nanoseconds, before the cap; 0 before the first. */
    private final AtomicLong lastRetryAfterNanos = new AtomicLong();
    private final CallbackFailures traceFailures;
    private final CallbackFailures limitListenerFailures;
    private final CallbackFailures pauseListenerFailures;
    private final CallbackFailures queueListenerFailures;
    private final CallbackFailures idleListenerFailures;
    private final CallbackFailures outageListenerFailures;
    private final CallbackFailures algorithmFailures;
    private final CallbackFailures gateFailures;
    /**
     * The ticker, where a reading that throws cannot just be skipped: a grant, a release, a
     * ceiling, a fold from elsewhere, a view of the open pause, a pause's or a quota window's
     * end; and an executor's readings ({@link ExecutionImpl}), as for {@link #classifierFailures}.
     */
    final CallbackFailures tickerFailures;
    /** The scheduler's handles: a cancel of a wait timeout or of the gate's wake-up. */
    private final CallbackFailures cancelFailures;
    /** For the runners' {@link OutcomeClassifier}s, which the limiter itself never calls. */
    final CallbackFailures classifierFailures;
    // Lowest success RTT seen; fed to the algorithm instead of the real RTT when latency
    // adaptation is off, so the algorithm sees a flat RTT.
    private volatile long floorRtt = Long.MAX_VALUE;

    /** The admission gate, or {@code null}: without one, acquire and release never look further. */
    private final AdmissionGate gate;
    /** The wake-up armed for the gate's last "not before" answer, or {@code null}; armed only by the drain. */
    private final AtomicReference<GateWake> gateWake = new AtomicReference<>();
    /** Set by {@link #gateChanged()}: the next drain pass drops the armed wake-up and asks afresh. */
    private volatile boolean gateStale;
    /** Whether every grant goes through the drain: with a gate, or when an announced quota is spread. */
    private final boolean gated;
    /** The quota a server announced; its bound on in-flight is read by every grant. */
    private final QuotaWindow quota;
    private final boolean quotaSpread;
    private final LongAdder quotaHolds = new LongAdder();
    /** Tells an outage from a few failures and paces its probes; {@code null} when turned off. */
    private final OutageWatch outage;
    private final LongAdder outages = new LongAdder();
    private final RetryBudget retryBudget;
    /** The count of {@link #retryBudget}, or {@code null} when it is unlimited. */
    private final RetryAllowance retryAllowance;

    LimiterCore(String name, Limit algorithm, Ticker ticker, Scheduler scheduler, Adapt adapt, int maxWaiters,
                Duration waitTimeout, Duration maxRetryAfter, List<TraceListener> traceListeners,
                List<LimitChangeListener> limitListeners, AdmissionGate gate, boolean quotaSpread,
                RetryBudget retryBudget, Duration outageProbe) {
        this.name = name;
        this.outage = outageProbe.isZero() ? null : new OutageWatch(Nanos.of(outageProbe));
        this.gate = gate;
        this.quotaSpread = quotaSpread;
        this.gated = gate != null || quotaSpread;
        this.retryBudget = retryBudget;
        this.retryAllowance = retryBudget.isUnlimited() ? null : new RetryAllowance(retryBudget);
        this.algorithm = algorithm;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.adapt = adapt;
        this.maxWaiters = maxWaiters;
        this.waitTimeoutNanos = waitTimeout == null ? 0 : Nanos.of(waitTimeout);
        this.maxRetryAfterNanos = Nanos.of(maxRetryAfter);
        this.quota = new QuotaWindow(maxRetryAfterNanos);
        this.traceListeners = traceListeners.toArray(new TraceListener[0]);
        this.tracedKinds = kindsOf(this.traceListeners);
        this.limitListeners = limitListeners.toArray(new LimitChangeListener[0]);
        this.traceFailures = new CallbackFailures(LOG, name, "trace listener", listenerFailures);
        this.limitListenerFailures = new CallbackFailures(LOG, name, "limit-change listener", listenerFailures);
        this.pauseListenerFailures = new CallbackFailures(LOG, name, "rate-pause listener", listenerFailures);
        this.queueListenerFailures = new CallbackFailures(LOG, name, "queue listener", listenerFailures);
        this.idleListenerFailures = new CallbackFailures(LOG, name, "idle listener", listenerFailures);
        this.outageListenerFailures = new CallbackFailures(LOG, name, "outage listener", listenerFailures);
        this.algorithmFailures = new CallbackFailures(LOG, name, "limit algorithm ('" + algorithm.name() + "')",
                limitFailures);
        this.gateFailures = new CallbackFailures(LOG, name, "admission gate", limitFailures);
        this.tickerFailures = new CallbackFailures(LOG, name, "ticker", limitFailures);
        this.cancelFailures = new CallbackFailures(LOG, name, "timer's cancel", limitFailures);
        this.classifierFailures = new CallbackFailures(LOG, name, "outcome classifier", classifierFailureCount);
        this.minLimit = Math.max(1, algorithm.minLimit());
        this.maxLimit = Math.max(minLimit, algorithm.maxLimit());
        LimitState initial = Objects.requireNonNull(algorithm.initialState(),
                () -> "limit '" + algorithm.name() + "' returned no initial state");
        int limit = clamp(initial.limit());
        this.limitState = new AtomicReference<>(initial);
        this.localLimit = limit;
        this.effectiveLimit = limit;
        this.maxLimitReached = new AtomicInteger(limit);
    }

    private int clamp(int limit) {
        return Math.max(minLimit, Math.min(maxLimit, limit));
    }

    /** @return the state's limit within the bounds, or {@code fallback} if reading it throws */
    private int limitOf(LimitState s, int fallback) {
        try {
            return clamp(s.limit());
        } catch (Throwable brokenLimit) {
            algorithmFailures.failed(brokenLimit);
            return fallback;
        }
    }

    // ---- acquisition -------------------------------------------------------------------

    Lease tryAcquire() {
        LimiterState s = state;
        Lease lease;
        if (s != LimiterState.RUNNING || pause != null || waiting.get() > 0) {
            lease = null;
        } else if (throughDrain()) {
            lease = tryAcquireGated();
        } else {
            int n = tryIncrement();
            if (n < 0) {
                lease = null;
            } else {
                try {
                    lease = leaseFor(n);
                } catch (Throwable brokenTicker) {
                    // Its slot is back and the failure counted: no lease, as when a gated
                    // tryAcquire's grant fails. Not shed: the limiter had the room.
                    return null;
                }
            }
        }
        if (lease == null && s == LimiterState.RUNNING) {
            shed.increment(); // full, paused by a Retry-After, or others queued first: load, not lifecycle
        }
        return lease;
    }

    /**
     * Only the drain asks the gate (its calls must not overlap), so a gated tryAcquire queues,
     * drains, and withdraws at once unless the drain granted it meanwhile.
     */
    private Lease tryAcquireGated() {
        Waiter w = new Waiter(false);
        waiting.incrementAndGet();
        waiters.offer(w);
        drain();
        if (w.cancel(false) || w.isCompletedExceptionally()) {
            return null;
        }
        return w.join();
    }

    CompletableFuture<Lease> acquire() {
        return acquire(false, false);
    }

    /**
     * @param ahead whether the acquisition goes before every one queued without it (a retry of
     *              older work), though after those queued with it before
     * @param retry whether it is for a retry: in an outage, probes are first attempts where any wait
     */
    CompletableFuture<Lease> acquire(boolean ahead, boolean retry) {
        LeaseImpl now;
        try {
            now = grantNow();
        } catch (Throwable brokenTicker) {
            return CompletableFuture.failedFuture(brokenTicker); // as the drain fails a grant it cannot stamp
        }
        return now != null ? CompletableFuture.completedFuture(now) : queue(ahead, retry);
    }

    /**
     * What {@link #acquire(boolean, boolean)} does when {@link #grantNow()} found no slot: fails
     * if the limiter is closed, else queues (and drains, so a slot freed since is granted).
     *
     * @param ahead see {@link #acquire(boolean, boolean)}
     * @param retry see {@link #acquire(boolean, boolean)}
     * @return the acquisition
     */
    CompletableFuture<Lease> queue(boolean ahead, boolean retry) {
        LimiterState s = state;
        if (s == LimiterState.STOPPED || s == LimiterState.ABORTED) {
            return CompletableFuture.failedFuture(closed(s));
        }
        CompletableFuture<Lease> w = enqueue(ahead, retry);
        drain();
        return w;
    }

    /**
     * A lease at once, when {@link #acquire(boolean, boolean)} would grant one without queueing:
     * running, no pause, nobody waiting, no gate to drain through, and a free slot.
     *
     * @return the lease, or {@code null} if the acquisition must queue (or fail: the caller
     *         then goes through {@link #queue(boolean, boolean)}, which says why)
     * @throws RuntimeException what the ticker threw as the lease was stamped (an {@code Error}
     *         too): the slot is back and the failure counted; the caller fails the acquisition with it
     */
    LeaseImpl grantNow() {
        if (!throughDrain() && state == LimiterState.RUNNING && pause == null && waiting.get() == 0) {
            int n = tryIncrement();
            if (n >= 0) {
                return leaseFor(n);
            }
        }
        return null;
    }

    /**
     * Stamps the lease of a slot just counted outside the drain. A ticker that throws leaves no
     * start to stamp it with: the slot goes back (draining, as any freed slot does), the failure
     * is counted, and what the ticker threw is rethrown for the caller to fail that acquisition with.
     *
     * @param n the in-flight count with this slot
     * @return the lease
     */
    private LeaseImpl leaseFor(int n) {
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            tickerFailures.failed(brokenTicker);
            giveBack();
            throw brokenTicker;
        }
        return new LeaseImpl(this, now, n);
    }

    /** Queues an acquisition without draining: the caller drains, or frees a slot that drains. */
    private CompletableFuture<Lease> enqueue(boolean ahead, boolean retry) {
        if (waiting.get() >= maxWaiters) {
            shed.increment();
            return CompletableFuture.failedFuture(new RejectedException(
                    "limiter '" + name + "' has " + maxWaiters + " waiters queued (maxQueueSize=" + maxWaiters + ")"));
        }
        Waiter w = new Waiter(retry);
        boolean first = waiting.incrementAndGet() == 1;
        (ahead ? aheadWaiters : waiters).offer(w);
        if (first && !queueListeners.isEmpty()) {
            Listeners.tellAll(queueListeners, w, (l, x) -> l.run(), queueListenerFailures);
        }
        if (waitTimeoutNanos > 0) {
            try {
                w.timeout = scheduler.schedule(() -> w.completeExceptionally(new AcquireTimeoutException(
                        "limiter '" + name + "': no slot within waitTimeout=" + Duration.ofNanos(waitTimeoutNanos))),
                        waitTimeoutNanos);
            } catch (Throwable rejected) {
                // Already queued: fail the acquisition (it leaves the queue) rather than leave an
                // orphan that a later grant would give a slot nobody releases.
                w.completeExceptionally(rejected);
            }
        }
        // The state may have changed between the check and the enqueue.
        LimiterState now = state;
        if (now == LimiterState.ABORTED) {
            w.completeExceptionally(closed(now));
        }
        return w;
    }

    /** @return the new in-flight count, or -1 if full */
    private int tryIncrement() {
        for (;;) {
            int n = inflight.get();
            // The ceiling is read directly too, so a lowered fleet share binds at once, even
            // while a concurrent fold is still publishing the effective limit.
            if (n >= effectiveLimit || n >= ceiling || n >= quota.bound) {
                return -1;
            }
            if (inflight.compareAndSet(n, n + 1)) {
                return n + 1;
            }
        }
    }

    private boolean mayDispatch() {
        LimiterState s = state;
        return (s == LimiterState.RUNNING || s == LimiterState.STOPPED) && pause == null;
    }

    private void leave(Waiter w) {
        if (!w.markGone()) {
            return;
        }
        waiting.decrementAndGet();
        cancelTimer(w.timeout);
        if (departed.incrementAndGet() > waiting.get() + SWEEP_SLACK) {
            sweep();
        }
    }

    /**
     * Unlinks the gone nodes. Runs only after more waiters left than are live (plus the slack),
     * so its cost, at most the live plus the gone nodes, is at most about twice the leavings
     * since the last sweep: O(1) per leaving waiter.
     */
    private void sweep() {
        if (!sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            departed.set(0);
            long[] visited = new long[1];
            waiters.removeIf(w -> {
                visited[0]++;
                return w.gone();
            });
            aheadWaiters.removeIf(w -> {
                visited[0]++;
                return w.gone();
            });
            sweptNodes += visited[0];
        } finally {
            sweeping.set(false);
        }
    }

    /** @return the next waiter still queued, now taken, or {@code null}; gone ones are dropped */
    private Waiter takeNext() {
        Waiter w;
        while ((w = aheadWaiters.poll()) != null || (w = waiters.poll()) != null) {
            if (w.markTaken()) {
                return w;
            }
        }
        return null;
    }

    /**
     * In an outage: the first attempt queued longest, where one waits, else the next in order;
     * for the second probe of an outage, the retry queued longest where one waits
     * ({@link OutageWatch#retryProbeNext}). A failed probe then costs fresh work one attempt
     * rather than work that already failed another retry, so that no item spends its retries on
     * the outage. A waiter taken out of order stays linked until a poll drops it, as a gone one does.
     */
    private Waiter takeProbe() {
        boolean retry = outage.retryProbeNext();
        if (retry) {
            Waiter w;
            while ((w = aheadWaiters.poll()) != null) {
                if (w.markTaken()) {
                    return w;
                }
            }
        }
        for (Waiter w : waiters) {
            if (w.retry == retry && w.markTaken()) {
                return w;
            }
        }
        return takeNext();
    }

    /** @return whether every grant goes through the drain now: a gate, a spread quota, or an outage's probes */
    private boolean throughDrain() {
        return gated || (outage != null && outage.on());
    }

    void drain() {
        drainLoop.signal();
    }

    private void drainPass() {
        if (throughDrain()) {
            gatedPass();
            return;
        }
        while (mayDispatch() && waiting.get() > 0) {
            if (outage != null && outage.on()) {
                // Begun by a release inside this pass (a call that failed as soon as it was
                // granted): the next grant is a probe.
                gatedPass();
                return;
            }
            int n = tryIncrement();
            if (n < 0) {
                break;
            }
            Waiter w = takeNext();
            if (w == null) {
                inflight.decrementAndGet();
                break;
            }
            waiting.decrementAndGet();
            long now;
            try {
                now = ticker.nanoTime();
            } catch (Throwable brokenTicker) {
                // No start to stamp a lease with: the slot goes back and the acquisition fails.
                inflight.decrementAndGet(); // no signal: this loop goes round again
                failTaken(w, brokenTicker);
                continue;
            }
            LeaseImpl lease = new LeaseImpl(this, now, n);
            cancelTimer(w.timeout);
            w.grant(lease);
        }
    }

    /** The drain with a gate: the gate is asked before each grant and told of each start. */
    private void gatedPass() {
        if (gateStale) {
            gateStale = false;
            cancelGateWake();
        }
        while (mayDispatch() && waiting.get() > 0) {
            long now;
            try {
                now = ticker.nanoTime();
            } catch (Throwable brokenTicker) {
                // No time to ask the gate with: the grant a free slot would have made fails the
                // acquisition it was for, rather than leave it queued with nothing to drain again
                // (nothing in flight, no wake-up armed). With no slot free, a release drains again.
                if (tryIncrement() < 0) {
                    tickerFailures.failed(brokenTicker);
                    return;
                }
                inflight.decrementAndGet(); // never granted: no lease, no gate to tell
                Waiter w = takeNext();
                if (w == null) {
                    tickerFailures.failed(brokenTicker);
                    return;
                }
                waiting.decrementAndGet();
                failTaken(w, brokenTicker);
                continue;
            }
            boolean probing = outage != null && outage.on();
            long at = askGate(now, probing);
            if (at == AdmissionGate.HOLD) {
                cancelGateWake();
                return;
            }
            long wait = Nanos.between(now, at);
            if (wait > 0) {
                armGateWake(at, wait);
                return;
            }
            int n = tryIncrement();
            if (n < 0) {
                return; // a release drains again
            }
            Waiter w = probing ? takeProbe() : takeNext();
            if (w == null) {
                inflight.decrementAndGet();
                return;
            }
            waiting.decrementAndGet();
            LeaseImpl lease;
            if (gate != null) {
                GatedLease g = new GatedLease(this, now, n);
                try {
                    g.ticket = gate.started(g);
                } catch (Throwable brokenGate) {
                    gateFailures.failed(brokenGate);
                }
                lease = g;
            } else {
                lease = new LeaseImpl(this, now, n);
            }
            if (quotaSpread) {
                quota.started(now);
            }
            if (probing) {
                outage.probeStarted(lease);
            }
            cancelTimer(w.timeout);
            w.grant(lease);
        }
    }

    /**
     * Ends an acquisition the drain took but cannot grant because the ticker threw (its slot,
     * if one was counted, already given back): it fails with what the ticker threw, as one
     * whose wait timeout the scheduler refused fails with the refusal, and whoever waits for its
     * slot to be back hears.
     */
    private void failTaken(Waiter w, Throwable brokenTicker) {
        tickerFailures.failed(brokenTicker);
        cancelTimer(w.timeout);
        w.refuse(brokenTicker);
    }

    /**
     * Cancels one of the limiter's timers: a queued acquisition's wait timeout, the gate's
     * wake-up, an executor's. The handle is the user's scheduler's; one whose cancel throws is counted and
     * what called it goes on (a grant, a withdrawal, an abort, a drain), since the timer that
     * then fires finds nothing to do: the acquisition has ended (its completion with a
     * timeout fails), the wake-up only drains once more. The executor's timers go through it
     * too (an attempt's task timeout, a runner's wait for a retry): what they would run finds
     * its work done when it comes (the attempt settled, the retry dropped).
     */
    void cancelTimer(Cancellable timer) {
        if (timer != null) {
            try {
                timer.cancel();
            } catch (Throwable broken) {
                cancelFailures.failed(broken);
            }
        }
    }

    private long askGate(long now, boolean probing) {
        long at = now;
        if (probing) {
            at = outage.admitAt(now);
            if (at == AdmissionGate.HOLD) {
                return at;
            }
        }
        if (gate != null) {
            try {
                long g = gate.admitAt(now, inflight.get());
                at = g == AdmissionGate.HOLD || Nanos.between(at, g) > 0 ? g : at;
            } catch (Throwable brokenGate) {
                // Admits: a broken gate must not stall the limiter.
                gateFailures.failed(brokenGate);
            }
        }
        if (quotaSpread && at != AdmissionGate.HOLD) {
            long spread = quota.notBefore(now, inflight.get());
            if (Nanos.between(at, spread) > 0) {
                at = spread;
            }
        }
        return at;
    }

    private void armGateWake(long at, long wait) {
        GateWake armed = gateWake.get();
        if (armed != null) {
            if (Nanos.between(armed.atNanos, at) >= 0) {
                return; // an earlier (or equal) wake-up is armed; it asks again, and re-arms if need be
            }
            cancelTimer(armed.timer);
        }
        GateWake wake = new GateWake(at);
        gateWake.set(wake);
        try {
            wake.timer = scheduler.schedule(() -> {
                gateWake.compareAndSet(wake, null);
                drain();
            }, wait);
        } catch (Throwable rejected) {
            // Not armed (a scheduler that rejects, shut down say): forget it, so that the next drain (a release, an acquire, gateChanged) arms again.
            gateWake.compareAndSet(wake, null);
            gateFailures.failed(rejected);
        }
    }

    private void cancelGateWake() {
        GateWake armed = gateWake.getAndSet(null);
        if (armed != null) {
            cancelTimer(armed.timer);
        }
    }

    void gateChanged() {
        if (gate != null) {
            gateStale = true;
            drain();
        }
    }

    private void gateSettled(LeaseImpl lease, Outcome outcome, Throwable failure, long now) {
        Object ticket = ((GatedLease) lease).ticket;
        Listeners.tell(gate, ticket, (g, t) -> g.settled(t, outcome, failure, now), gateFailures);
    }

    // ---- release -----------------------------------------------------------------------

    /**
     * @param requeue whether to queue, ahead of fresh acquisitions, an acquisition for the same
     *                work's next attempt before the slot is freed, so that the freed slot goes
     *                to that retry rather than to newer work
     * @return the queued acquisition, or {@code null} without {@code requeue}
     */
    CompletableFuture<Lease> onRelease(LeaseImpl lease, Outcome outcome, Throwable failure, boolean requeue) {
        long now;
        boolean timed = true;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // No time for this end. What needs its own (the sample's RTT, the outage rule's
            // count) is dropped. What the server asked dispatch to wait for (a Retry-After
            // pause, an announced quota) still holds: measured from the latest reading this
            // lease has, its start, and timed by the scheduler by delay from now, so it lasts
            // the whole wait; dropped, it would send the work queued behind it straight back to
            // a server that asked to wait. The gate is told with that reading too; the slot is freed.
            tickerFailures.failed(brokenTicker);
            now = lease.startNanos();
            timed = false;
        }
        long rtt = Math.max(0, now - lease.startNanos());
        if (outcome instanceof Outcome.Success) {
            successes.increment();
        } else if (outcome instanceof Outcome.Ignored) {
            ignored.increment();
        } else if (outcome instanceof Outcome.RateLimited) {
            rateLimitEvents.increment();
        } else if (outcome instanceof Outcome.Dropped) {
            congestionEvents.increment();
        }
        CompletableFuture<Lease> next = null;
        // Every user call below (the limit, listeners, the gate, the scheduler) is isolated
        // where it is made, and nothing here should throw. The slot is freed in the outer
        // finally all the same: a throw that escaped one of the steps before it (all made
        // before the free, so that the next grant sees them) must not also leak the slot.
        try {
            try {
                if (outcome instanceof Outcome.RateLimited r && !r.retryAfter().isZero()) {
                    // Open the pause before the slot is freed, so the drain below cannot dispatch
                    // into the window the server just announced.
                    pauseFor(r.retryAfter(), now, !timed, false);
                }
                if (timed) {
                    fold(lease, outcome, now, rtt);
                }
            } finally {
                if (gate != null) {
                    // Before the slot is freed: the next admission already sees this end.
                    gateSettled(lease, outcome, failure, now);
                }
                Quota announced = outcome.quota();
                if (announced != null || quota.bound != QuotaWindow.NONE) {
                    // Before the slot is freed too: no grant may see the slot without the bound.
                    quotaSettled(announced, now);
                }
                if (outage != null) {
                    // Before the slot is freed too: an outage that begins here binds the next grant.
                    if (timed) {
                        outageSettled(lease, outcome, now);
                    } else {
                        outage.unused(lease); // a probe's place is free again all the same
                    }
                }
                if (requeue) {
                    LimiterState s = state;
                    next = s == LimiterState.STOPPED || s == LimiterState.ABORTED
                            ? CompletableFuture.failedFuture(closed(s)) : enqueue(true, true);
                }
            }
        } finally {
            int left = inflight.decrementAndGet();
            if (waiting.get() > 0) {
                drain();
            }
            if (left == 0) {
                idle();
            }
        }
        return next;
    }

    /** Returns the slot of a lease that never reached its caller or was never used: no sample. */
    void unused(LeaseImpl lease) {
        if (lease instanceof GatedLease g) {
            Listeners.tell(gate, g.ticket, AdmissionGate::unused, gateFailures);
        }
        if (outage != null) {
            // No ticker reading: this runs inside the drain (a grant raced by a withdrawal), where
            // a ticker that throws would keep the slot and stop the drain.
            outage.unused(lease);
        }
        giveBack();
    }

    private void outageSettled(LeaseImpl lease, Outcome outcome, long now) {
        OutageWatch.Change change = outage.settled(lease, lease.outageEpoch(), outcome, now);
        if (change == OutageWatch.Change.STARTED) {
            outages.increment();
            tellOutage(new TraceEvent.Outage(name, now, true, outage.runDrops(), Duration.ofNanos(outage.nextProbeIn(now))));
        } else if (change == OutageWatch.Change.ENDED) {
            tellOutage(new TraceEvent.Outage(name, now, false, outage.lastRunDrops(), Duration.ZERO));
        }
    }

    private void tellOutage(TraceEvent.Outage event) {
        try {
            if (LOG.isLoggable(Level.INFO)) {
                LOG.log(Level.INFO, "limiter '" + name + "': " + (event.started()
                        ? "outage: " + event.drops() + " errors or timeouts, calls sent after the first failing too;"
                        + " one probe at a time, the first in " + event.nextProbe()
                        : "outage over after " + event.drops() + " errors or timeouts; dispatch resumes with "
                        + waiting.get() + " waiting"));
            }
        } catch (Throwable brokenLogger) {
            // Logging is an observer: its failure must not unwind a release.
        }
        if (traces(OUTAGE)) {
            emit(event);
        }
        Listeners.tellAll(outageListeners, event, Consumer::accept, outageListenerFailures);
    }

    void addOutageListener(Consumer<TraceEvent.Outage> listener) {
        outageListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    boolean removeOutageListener(Consumer<TraceEvent.Outage> listener) {
        return Listeners.removeOne(outageListeners, listener);
    }

    boolean isOutage() {
        return outage != null && outage.on();
    }

    /** @return what a lease granted now records for the outage rule: the runs of drops begun so far */
    int outageEpoch() {
        return outage == null ? 0 : outage.epoch();
    }

    /** Returns a slot without a sample. */
    void giveBack() {
        int left = inflight.decrementAndGet();
        if (waiting.get() > 0) {
            drain();
        }
        if (left == 0) {
            idle();
        }
    }

    /**
     * A release, or a slot given back, left nothing in flight: the idle listeners are told, after
     * the drain (which may have granted a slot again meanwhile: a hint). Looked at only then, so
     * a busy limiter, and one without idle listeners, does nothing more per release.
     */
    private void idle() {
        if (!idleListeners.isEmpty()) {
            Listeners.tellAll(idleListeners, this, (l, x) -> l.run(), idleListenerFailures);
        }
    }

    private void fold(LeaseImpl lease, Outcome outcome, long now, long rtt) {
        fold(lease.startNanos(), lease.sampledInflight(), outcome, now, rtt);
    }

    /**
     * A rate limit met by another client of this backend, folded as if a call of ours admitted
     * now, with the fleet's in flight, had been refused at once.
     */
    void foldRateLimitElsewhere(Duration retryAfter) {
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // A sample without a time is dropped, as at a release. Not rethrown: a fleet's relay
            // applies the fleet's pause right after the fold, and a lost sample must not keep it
            // from doing so.
            tickerFailures.failed(brokenTicker);
            return;
        }
        int n = (int) Math.min(Integer.MAX_VALUE, (long) inflight.get() + othersInflight);
        fold(now, Math.max(1, n), Outcome.rateLimited(retryAfter), now, 0);
    }

    void othersInflight(int n) {
        othersInflight = n;
    }

    int othersInflight() {
        return othersInflight;
    }

    private void fold(long startNanos, int sampledInflight, Outcome outcome, long now, long rtt) {
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
        Sample sample = new Sample(startNanos, rtt, sampledInflight, outcome);
        LimitState before;
        LimitState after;
        int afterLimit;
        try {
            do {
                before = limitState.get();
                after = algorithm.update(before, sample);
                // Read before the state is published: a state whose limit cannot be read is
                // refused like a fold that threw.
                afterLimit = clamp(after.limit());
            } while (after != before && !limitState.compareAndSet(before, after));
        } catch (Throwable brokenLimit) {
            // The documented fallback: the state stays what it was, as if the sample had not come.
            algorithmFailures.failed(brokenLimit);
            return;
        }
        if (traces(DECISION)) {
            emitDecision(now, afterLimit, after, sample);
        }
        if (afterLimit != localLimit) {
            onLimitChanged(outcome instanceof Outcome.RateLimited ? "rate-limit" : "sample", now, true);
        }
    }

    private void emitDecision(long now, int limit, LimitState after, Sample sample) {
        TraceEvent.Decision decision;
        try {
            decision = new TraceEvent.Decision(name, now, algorithm.name(), limit, after.metrics(), sample);
        } catch (Throwable brokenLimit) {
            algorithmFailures.failed(brokenLimit);
            return;
        }
        emit(decision);
    }

    /**
     * @param now   the ticker reading, for the trace event
     * @param timed whether {@code now} is a reading: without one, the change is made and told
     *              to the listeners all the same, and only the trace event, which needs a time, is dropped
     */
    private void onLimitChanged(String reason, long now, boolean timed) {
        // Publish the newest state's limit, not necessarily ours: another thread may have
        // folded a later sample between our CAS and this line.
        int oldEffective = effectiveLimit;
        int oldLocal = localLimit;
        int local;
        int bound;
        int newEffective;
        LimitState read;
        // A fold and a ceiling change racing here could otherwise leave the older of the two
        // results in place (a ceiling of 10 overwritten by a fold's min(local, 15)): whoever
        // writes re-reads the inputs afterwards and writes again if either moved meanwhile.
        // The state is compared by identity, so a limit() that answers differently each time
        // cannot keep this loop going.
        do {
            read = limitState.get();
            local = limitOf(read, localLimit);
            bound = ceiling;
            newEffective = Math.min(local, bound);
            localLimit = local;
            effectiveLimit = newEffective;
        } while (limitState.get() != read || ceiling != bound);
        maxLimitReached.accumulateAndGet(newEffective, Math::max);
        if (local != oldLocal && !localLimitListeners.isEmpty()) {
            int from = oldLocal;
            int to = local;
            Listeners.tellAll(localLimitListeners, to, (l, t) -> l.onChange(from, t), limitListenerFailures);
        }
        if (newEffective != oldEffective) {
            (newEffective > oldEffective ? limitIncreases : limitDecreases).increment();
            logLimitChange(oldEffective, newEffective, reason);
            if (timed && traces(CONCURRENCY_CHANGE)) {
                emit(new TraceEvent.ConcurrencyChange(name, now, oldEffective, newEffective, reason));
            }
            if (limitListeners.length > 0) {
                int from = oldEffective;
                int to = newEffective;
                Listeners.each(limitListeners, l -> l.onChange(from, to), limitListenerFailures);
            }
            if (newEffective > oldEffective && waiting.get() > 0) {
                drain();
            }
        }
    }

    private void logLimitChange(int from, int to, String reason) {
        try {
            // The level is asked inside the try too: a logging backend is user configuration,
            // and this runs inside a release.
            if (!LOG.isLoggable(Level.DEBUG)) {
                return;
            }
            LOG.log(Level.DEBUG, "limiter '" + name + "': limit " + from + " -> " + to + " (" + reason + ")");
        } catch (Throwable brokenLogger) {
            // Logging is an observer: its failure must not unwind a release.
        }
    }

    void ceiling(int c) {
        ceiling = c;
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // The bound is set already and binds new grants; it must also reach the effective
            // limit, the listeners and the waiters (a raised share left at the old limit admitted
            // nothing more), and a fleet member sets it under its own lock, where a throw would
            // leave the member's state half-changed: not rethrown, only the time is missing.
            tickerFailures.failed(brokenTicker);
            onLimitChanged("coordinator", 0, false);
            return;
        }
        onLimitChanged("coordinator", now, true);
    }

    int ceilingValue() {
        return ceiling;
    }

    void addQueueListener(Runnable listener) {
        queueListeners.add(listener);
    }

    void addIdleListener(Runnable listener) {
        idleListeners.add(listener);
    }

    boolean removeIdleListener(Runnable listener) {
        return Listeners.removeOne(idleListeners, listener);
    }

    boolean removeQueueListener(Runnable listener) {
        return Listeners.removeOne(queueListeners, listener);
    }

    void addLocalLimitListener(LimitChangeListener listener) {
        localLimitListeners.add(listener);
    }

    boolean removeLocalLimitListener(LimitChangeListener listener) {
        return Listeners.removeOne(localLimitListeners, listener);
    }

    void addRatePauseListener(Consumer<TraceEvent.RatePause> listener) {
        pauseListeners.add(listener);
    }

    boolean removeRatePauseListener(Consumer<TraceEvent.RatePause> listener) {
        return Listeners.removeOne(pauseListeners, listener);
    }

    // ---- announced quotas and the retry budget -------------------------------------------

    private void quotaSettled(Quota announced, long now) {
        long armAt = quota.settled(announced, now);
        if (armAt != 0) {
            // From this release's own reading: a second one would cost a ticker call per
            // release that announces a quota, and could throw after the slot is freed.
            long wait = Math.max(0, Nanos.between(now, armAt));
            try {
                scheduler.schedule(() -> quotaRenewed(armAt), wait);
            } catch (Throwable rejected) {
                // No timer will renew this window (a scheduler that rejects, shut down say): it
                // would hold dispatch for good once nothing is in flight to settle and close it,
                // so it closes now, as an untimed Retry-After pause is not held. Not rethrown:
                // it would unwind this release before its slot is freed.
                quota.expireUntimed(armAt);
                logUntimed("the renewal of an announced quota's window in " + Duration.ofNanos(wait), rejected);
            }
        }
        // This answer's slot is still counted: after its release, in flight is one less.
        if (quota.holdBegins(inflight.get() - 1)) {
            quotaHolds.increment();
            if (traces(QUOTA_HOLD)) {
                emit(new TraceEvent.QuotaHold(name, now, Math.max(0, quota.remaining()), quota.resetAtNanos()));
            }
        }
    }

    private void quotaRenewed(long armedAt) {
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // Its timer fired, and there is no time to check it against: the window closes, as
            // one whose renewal the scheduler refuses to time is not held, rather than bound
            // dispatch for good (nothing may be in flight to settle and close it). Not rethrown:
            // the scheduler's thread is no place for it.
            tickerFailures.failed(brokenTicker);
            if (quota.expireUntimed(armedAt)) {
                drain();
            }
            return;
        }
        long left = quota.expire(armedAt, now);
        if (left == 0) {
            drain();
        } else if (left > 0) {
            // Fired before the reset by the ticker: look again then, or the window would bound
            // dispatch for good once nothing is in flight to settle and close it.
            try {
                scheduler.schedule(() -> quotaRenewed(armedAt), left);
            } catch (Throwable rejected) {
                // As for a renewal the scheduler refuses at the start: the window closes now.
                if (quota.expireUntimed(armedAt)) {
                    logUntimed("the timer of the last " + Duration.ofNanos(left) + " of an announced quota's window",
                            rejected);
                    drain();
                }
            }
        }
    }

    long quotaRemaining() {
        return quota.remaining();
    }

    long quotaResetNanos() {
        return quota.resetAtNanos();
    }

    RetryBudget retryBudget() {
        return retryBudget;
    }

    /** A first attempt of an executor's task starts: it adds to the retry budget. */
    void firstAttempt(long now) {
        if (retryAllowance != null) {
            retryAllowance.firstAttempt(now);
        }
    }

    /**
     * @return whether the retry budget may refuse a retry: {@code false} for
     *         {@link RetryBudget#unlimited()}, which refuses nothing whatever the time, so that
     *         a runner need not read the ticker to ask it
     */
    boolean retryBudgeted() {
        return retryAllowance != null;
    }

    /**
     * @return {@code null} if the retry budget allows one more retry now (and counts it), or
     *         what it held, for the refusal's message
     */
    String refuseRetry(long now) {
        if (retryAllowance == null || retryAllowance.tryRetry(now)) {
            return null;
        }
        return "limiter '" + name + "': retry budget exhausted, " + retryAllowance.describe();
    }

    // ---- Retry-After pauses ------------------------------------------------------------

    /**
     * A pause asked for from outside. Its reading comes first: a ticker that throws reaches the
     * caller with nothing changed (no pause can be timed without it, and the caller, unlike a
     * release, can act on it).
     */
    void pauseFor(Duration retryAfter) {
        if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            return;
        }
        pauseFor(retryAfter, ticker.nanoTime(), false, false);
    }

    /**
     * A pause asked for from outside by a caller that must not lose it (a fleet's relay): a
     * ticker that throws is counted, and the pause is opened all the same, blind, with the
     * caller's last reading standing for now.
     */
    void pauseFor(Duration retryAfter, long lastReadingNanos) {
        if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            return;
        }
        long now;
        boolean blind = false;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            tickerFailures.failed(brokenTicker);
            now = lastReadingNanos;
            blind = true;
        }
        // Long.MIN_VALUE: the caller has no reading either, so nothing stands for now.
        pauseFor(retryAfter, now, blind, blind && lastReadingNanos == Long.MIN_VALUE);
    }

    /**
     * @param blind     whether {@code now} stands in for a reading that could not be made, see {@link #openPause}
     * @param noReading whether nothing stood in either ({@link Long#MIN_VALUE})
     */
    private void pauseFor(Duration retryAfter, long now, boolean blind, boolean noReading) {
        long asked = Nanos.of(retryAfter);
        lastRetryAfterNanos.set(asked);
        openPause(now, Nanos.plus(now, Math.min(asked, maxRetryAfterNanos)), asked, blind, noReading);
    }

    void pauseUntil(long untilNanos) {
        long now = ticker.nanoTime();
        // Saturated: Long.MIN_VALUE is long past, not (wrapped) 292 years ahead.
        long wait = Nanos.between(now, untilNanos);
        if (wait <= 0) {
            return;
        }
        lastRetryAfterNanos.set(wait);
        openPause(now, Nanos.plus(now, Math.min(wait, maxRetryAfterNanos)), wait, false, false);
    }

    /**
     * Opens a pause from {@code now} to {@code until}, or extends the open one.
     *
     * <p>A blind pause is one whose {@code now} stands in for a reading that could not be made
     * (the ticker threw): an earlier reading, the lease's start or the caller's. Its timer, by
     * delay from this call, holds dispatch its whole length; its recorded end is early by the
     * age of the reading that stood in, so it is never found covered by an open pause (it may
     * end later than the open one's recorded end says), and a pause opened later never cuts it
     * short: it is merged into the open pause, whose recorded end is the later of the two, and
     * the pause ends only once the timers of all the blind pauses merged into it have fired
     * (the last one ends it, or times the rest of a later recorded end).
     *
     * <p>A blind pause opened with no reading at all ({@code noReading}: the caller of
     * {@link #pauseFor(Duration, long)} had none, {@link Long#MIN_VALUE}) has {@code now} and its
     * recorded end counted from {@link Long#MIN_VALUE}: long past, so it is never found later than
     * an end that stands on a reading, and its end is not known ({@link Pause#endUnknown}). Its
     * timer holds it all the same.
     *
     * @param askedNanos the wait asked for, before the cap, for the log line
     * @param blind      whether {@code now} stands in for a reading that could not be made
     * @param noReading  whether nothing stood in either
     */
    private void openPause(long now, long until, long askedNanos, boolean blind, boolean noReading) {
        Pause opened = null;
        Pause current;
        for (;;) {
            current = pause;
            boolean later = current == null || Nanos.between(current.untilNanos, until) > 0;
            if (!later && !blind) {
                return; // an open pause already covers it
            }
            // An extension keeps the opening time, for the line that says how long dispatch was held.
            long opening = current == null ? now : current.openedNanos;
            long end = later ? until : current.untilNanos;
            Object lineage = current == null ? null : current.lineage;
            if (blind && lineage == null) {
                lineage = new Object();
            }
            // The end's own: a later end is this pause's, else the open one's.
            boolean endUnknown = later ? noReading : current.endUnknown;
            opened = new Pause(opening, end, (current == null ? 0 : current.blindTimers) + (blind ? 1 : 0), lineage,
                    endUnknown);
            if (PAUSE.compareAndSet(this, current, opened)) {
                break;
            }
        }
        long wait = Nanos.between(now, until);
        if (current == null) {
            pausesOpened.increment();
        }
        logPause(current != null, wait, askedNanos);
        if (traces(RATE_PAUSE) || !pauseListeners.isEmpty()) {
            TraceEvent.RatePause event = new TraceEvent.RatePause(name, now, until, Duration.ofNanos(wait));
            emit(event);
            Listeners.tellAll(pauseListeners, event, Consumer::accept, pauseListenerFailures);
        }
        Pause mine = opened;
        try {
            if (blind) {
                scheduler.schedule(() -> blindTimerFired(mine.lineage), wait);
            } else {
                scheduler.schedule(() -> maybeEndPause(mine), wait);
            }
        } catch (Throwable rejected) {
            // No timer will end this pause (a scheduler that rejects, shut down say): put back what
            // was open (whose own timer ends it) rather than hold dispatch for good. Not rethrown:
            // it would unwind the release of the lease that carried the answer.
            if (PAUSE.compareAndSet(this, mine, current)) {
                logUntimed("the timer of a Retry-After pause of " + Duration.ofNanos(wait), rejected);
                drain();
            } else if (blind) {
                // Merged into a pause opened since: its timer is counted there, and none will
                // fire. As fired now, so that the pause is not held for good.
                logUntimed("the timer of a Retry-After pause of " + Duration.ofNanos(wait), rejected);
                blindTimerFired(mine.lineage);
            }
        }
    }

    /**
     * The timer of a blind pause (see {@link #openPause}) has fired: its whole length has
     * passed. The last such timer of the open pause ends it as the pause's own timer would, or
     * times the rest of a later recorded end.
     */
    private void blindTimerFired(Object lineage) {
        for (;;) {
            Pause p = pause;
            if (p == null || p.lineage != lineage) {
                return; // not reached: a pause holding a blind pause's timer does not end before it fires
            }
            Pause rest = new Pause(p.openedNanos, p.untilNanos, p.blindTimers - 1, lineage, p.endUnknown);
            if (PAUSE.compareAndSet(this, p, rest)) {
                if (rest.blindTimers == 0) {
                    maybeEndPause(rest);
                }
                return;
            }
        }
    }

    /** @param what the wait whose timer the scheduler refused, for the line */
    private void logUntimed(String what, Throwable rejected) {
        try {
            LOG.log(Level.WARNING, "limiter '" + name + "': the scheduler refused " + what
                    + " (" + rejected + "); dispatch is not held for it");
        } catch (Throwable brokenLogger) {
            // Logging is an observer.
        }
    }

    private void maybeEndPause(Pause mine) {
        if (pause != mine) {
            return; // extended (the later pause's own timer ends it) or already ended
        }
        long left;
        long now = 0;
        boolean read = true;
        try {
            now = ticker.nanoTime();
            left = Nanos.between(now, mine.untilNanos);
        } catch (Throwable brokenTicker) {
            // Its timer fired, and there is no time to check it against: the pause ends, as one
            // whose timer the scheduler refuses is not held, rather than hold dispatch for good.
            tickerFailures.failed(brokenTicker);
            left = 0;
            read = false;
        }
        if (left > 0) {
            // A scheduler that fires early: look again when the pause is really over.
            try {
                scheduler.schedule(() -> maybeEndPause(mine), left);
                return;
            } catch (Throwable rejected) {
                // Nothing would look again: the pause ends now, as one whose timer the scheduler
                // refuses is not held. Not rethrown: the scheduler's thread is no place for it.
                logUntimed("the timer of the last " + Duration.ofNanos(left) + " of a Retry-After pause", rejected);
            }
        }
        if (mine.blindTimers > 0) {
            return; // a blind pause merged into it holds it until its own timer fires, which ends it
        }
        // Fails only if a later pause replaced this one meanwhile; that one stays.
        if (PAUSE.compareAndSet(this, mine, null)) {
            logResume(mine, read, now);
            drain();
        }
    }

    /**
     * INFO for a pause opened while none was open: rare, and what an operator looks for first.
     * An extension of an open pause (every attempt in flight may answer 429 at once) goes to DEBUG.
     */
    private void logPause(boolean extension, long waitNanos, long askedNanos) {
        Level level = extension ? Level.DEBUG : Level.INFO;
        try {
            if (!LOG.isLoggable(level)) {
                return;
            }
            boolean capped = askedNanos > maxRetryAfterNanos;
            LOG.log(level, "limiter '" + name + "': " + (extension ? "Retry-After pause extended, " : "Retry-After pause opened, ")
                    + "dispatch held for " + Duration.ofNanos(waitNanos) + " (asked " + Duration.ofNanos(askedNanos)
                    + (capped ? ", capped" : ", not capped") + " by maxRetryAfter=" + Duration.ofNanos(maxRetryAfterNanos)
                    + ")");
        } catch (Throwable brokenLogger) {
            // Logging is an observer: its failure must not keep the pause from closing or opening.
        }
    }

    /**
     * INFO for a pause closed, with its length as of {@code now}, the reading that found it over;
     * without one (the ticker threw there, counted), without its length. No reading of its own:
     * one made for a log line alone, inside the logger's guard, would be one whose throw went
     * uncounted.
     */
    private void logResume(Pause ended, boolean read, long now) {
        try {
            if (LOG.isLoggable(Level.INFO)) {
                LOG.log(Level.INFO, "limiter '" + name + "': Retry-After pause closed"
                        // Opened with no reading at all (Long.MIN_VALUE stood for now): no length to tell.
                        + (read && ended.openedNanos != Long.MIN_VALUE
                                ? " after " + Duration.ofNanos(Math.max(0, Nanos.between(ended.openedNanos, now))) : "")
                        + ", dispatch resumes with " + waiting.get() + " waiting");
            }
        } catch (Throwable brokenLogger) {
            // As above.
        }
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
        gateChanged(); // drops the gate's wake-up: an aborted limiter admits nothing more
        // O(n): each waiter is taken once, and its failure callback finds it taken. One
        // exception for all: filling in a stack trace per waiter cost more than the rest.
        LimiterClosedException aborted = null;
        Waiter w;
        while ((w = takeNext()) != null) {
            waiting.decrementAndGet();
            cancelTimer(w.timeout);
            if (aborted == null) {
                aborted = closed(LimiterState.ABORTED);
            }
            w.refuse(aborted);
        }
    }

    private LimiterClosedException closed(LimiterState s) {
        return new LimiterClosedException("limiter '" + name + "' is " + s.name().toLowerCase(java.util.Locale.ROOT));
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
        return pause != null;
    }

    long pausedUntilNanos() {
        Pause p = pause;
        return p == null ? 0 : p.endUnknown ? Long.MAX_VALUE : p.untilNanos;
    }

    /**
     * @param now a reading of the ticker
     * @return how long the open pause still holds dispatch after {@code now}: 0 if none is open,
     *         its whole length if its end is not known
     */
    long pauseLeftNanos(long now) {
        Pause p = pause;
        return p == null ? 0 : leftNanos(p, now);
    }

    /** @return what {@code p} still holds after {@code now}: its whole length if its end is not known */
    private static long leftNanos(Pause p, long now) {
        return Math.max(0, Nanos.between(p.endUnknown ? p.openedNanos : now, p.untilNanos));
    }

    LimiterStats stats() {
        Pause p = pause;
        // Read first: a ticker that throws here is counted, and these stats must show it; read
        // after the counts, it showed only in the next stats (a run taking its final counts
        // from these never saw it).
        Duration remaining = remaining(p);
        return new LimiterStats(limit(), inflight.get(), waiting.get(), maxLimitReached.get(),
                congestionEvents.sum(), rateLimitEvents.sum(), p != null, state, listenerFailures.sum(),
                limitFailures.sum(), successes.sum(), ignored.sum(), errorRetries.sum(), timeoutRetries.sum(),
                rateLimitRetries.sum(), pausesOpened.sum(), limitIncreases.sum(), limitDecreases.sum(), shed.sum(),
                remaining, Duration.ofNanos(lastRetryAfterNanos.get()),
                classifierFailureCount.sum(), quotaHolds.sum(), retryAllowance == null ? 0 : retryAllowance.refused(),
                outages.sum());
    }

    private Duration remaining(Pause p) {
        if (p == null) {
            return Duration.ZERO;
        }
        if (p.endUnknown) {
            // No reading places its end: the whole pause, with no reading made for it.
            return Duration.ofNanos(leftNanos(p, 0));
        }
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable brokenTicker) {
            // A view must answer: the runners read the stats where a throw would lose their end
            // (a pool's run, finishing, would never complete). Without a reading, at most the
            // whole pause.
            tickerFailures.failed(brokenTicker);
            now = p.openedNanos;
        }
        return Duration.ofNanos(leftNanos(p, now));
    }

    /** @return how long the open Retry-After pause still holds dispatch; zero when none is open */
    Duration remainingPause() {
        return remaining(pause);
    }

    /**
     * Counts a retry a runner decided on this limiter.
     *
     * @param cause       why the attempt failed
     * @param rateLimited whether the retry is on the rate-limit budget
     */
    void onRetry(Throwable cause, boolean rateLimited) {
        (rateLimited ? rateLimitRetries : cause instanceof TaskTimeoutException ? timeoutRetries : errorRetries)
                .increment();
    }

    /** @return the nodes in the waiter queue, gone ones included; O(n), for tests */
    int queuedWaiterNodes() {
        return waiters.size() + aheadWaiters.size();
    }

    /** @return the nodes every sweep of gone waiters looked at, in all; for tests */
    long sweptWaiterNodes() {
        return sweptNodes;
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
        Listeners.tellAll(traceListeners, event, TraceListener::onEvent, traceFailures);
    }

    synchronized void addTraceListener(TraceListener listener) {
        TraceListener[] old = traceListeners;
        TraceListener[] grown = java.util.Arrays.copyOf(old, old.length + 1);
        grown[old.length] = listener;
        tracedKinds = kindsOf(grown);
        traceListeners = grown;
    }

    synchronized boolean removeTraceListener(TraceListener listener) {
        TraceListener[] old = traceListeners;
        for (int i = 0; i < old.length; i++) {
            if (old[i] == listener) { // by identity, as the pause listeners
                TraceListener[] shrunk = new TraceListener[old.length - 1];
                System.arraycopy(old, 0, shrunk, 0, i);
                System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                tracedKinds = kindsOf(shrunk);
                traceListeners = shrunk;
                return true;
            }
        }
        return false;
    }

    /**
     * @param kind one of the kind bits
     * @return whether some trace listener wants events of that kind, so that it is worth building
     */
    boolean traces(int kind) {
        return (tracedKinds & kind) != 0;
    }

    private static int kindsOf(TraceListener[] listeners) {
        int kinds = 0;
        for (TraceListener l : listeners) {
            for (int i = 0; i < TRACE_KINDS.size(); i++) {
                boolean wanted;
                try {
                    wanted = l.accepts(TRACE_KINDS.get(i));
                } catch (Throwable broken) {
                    wanted = true; // the documented fallback: every kind, as a listener without the method
                }
                if (wanted) {
                    kinds |= 1 << i;
                }
            }
        }
        return kinds;
    }

    /**
     * An open Retry-After pause, from and until a ticker reading. Replaced, never changed.
     *
     * @param blindTimers the timers of the blind pauses merged into it that have not fired yet
     *                    ({@link #openPause}): it does not end before they have
     * @param lineage     what those timers find it by, across the pauses that replace it until
     *                    it ends; {@code null} while no blind pause was merged into it
     * @param endUnknown  whether its end comes from a blind pause opened with no reading at all
     *                    ({@link #openPause}): {@code untilNanos}, counted from
     *                    {@link Long#MIN_VALUE}, then means nothing to a reader, and the views
     *                    say so ({@link #pausedUntilNanos()}, {@link #remaining})
     */
    private record Pause(long openedNanos, long untilNanos, int blindTimers, Object lineage, boolean endUnknown) {
    }

    /** The drain's wake-up for a gate that answered "not before {@code atNanos}". */
    private static final class GateWake {
        final long atNanos;
        volatile Cancellable timer;

        GateWake(long atNanos) {
            this.atNanos = atNanos;
        }
    }

    /**
     * A queued acquisition, and the future its caller holds: queued, then either taken (by the
     * drain or an abort) or gone (left on its own: timed out, cancelled, failed by its caller).
     * Being the future itself, it learns that it left without a callback of its own, which
     * spares every queued acquisition a dependent and two objects.
     *
     * <p>A withdrawal (cancel, timeout) always completes the future at once, as the
     * {@link java.util.concurrent.Future} contract asks, also one that lands after the drain
     * took it and counted a slot for it, before the drain completes it with the lease. That
     * slot is then still counted once the future has ended: the drain's completion fails, it
     * gives the slot back, and only then tells whoever asked {@link #whenSlotBack} (a pool run
     * that ends once no slot of its own is counted). A grant that is not raced pays nothing
     * for this: the taker's extra step is on the failed completion only.
     */
    private final class Waiter extends CompletableFuture<Lease> implements SlotReturn {
        private static final VarHandle STATE;
        private static final VarHandle AFTER_SLOT_BACK;
        private static final int QUEUED = 0;
        private static final int TAKEN = 1;
        private static final int GONE = 2;
        /** In {@link #afterSlotBack} once the taker is done with it: what asks later runs at once. */
        private static final Runnable SLOT_BACK = () -> { };

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                STATE = lookup.findVarHandle(Waiter.class, "state", int.class);
                AFTER_SLOT_BACK = lookup.findVarHandle(Waiter.class, "afterSlotBack", Runnable.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        volatile Cancellable timeout;
        /** Whether it is for a retry (see {@link #takeProbe}). */
        final boolean retry;
        @SuppressWarnings("unused") // accessed through STATE
        private volatile int state;
        /**
         * What waits for the taker to be done with a withdrawn waiter ({@link #whenSlotBack}),
         * {@code null} while nothing does, or {@link #SLOT_BACK} once the taker is done.
         */
        @SuppressWarnings("unused") // accessed through AFTER_SLOT_BACK
        private volatile Runnable afterSlotBack;

        Waiter(boolean retry) {
            this.retry = retry;
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            boolean done = super.completeExceptionally(ex);
            if (done) {
                LimiterCore.this.leave(this);
            }
            return done;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean done = super.cancel(mayInterruptIfRunning);
            if (done) {
                LimiterCore.this.leave(this); // idempotent: true again for a future cancelled before
            }
            return done;
        }

        boolean markTaken() {
            return STATE.compareAndSet(this, QUEUED, TAKEN);
        }

        boolean markGone() {
            return STATE.compareAndSet(this, QUEUED, GONE);
        }

        boolean gone() {
            return state == GONE;
        }

        /**
         * Its taker grants it {@code lease}, whose slot the taker counted. If it was withdrawn
         * meanwhile (timed out, cancelled), the slot goes back, unsampled, and then whoever
         * waits for it to be back hears ({@link #whenSlotBack}).
         */
        void grant(LeaseImpl lease) {
            if (!complete(lease)) {
                lease.giveBack();
                slotBack();
            }
        }

        /**
         * Its taker fails it (an abort, a grant the ticker could not stamp) with no slot counted
         * for it; it says so all the same, since a withdrawal that came first waits for its taker.
         */
        void refuse(Throwable failure) {
            completeExceptionally(failure);
            slotBack();
        }

        /**
         * Called by its taker once done with it, when the taker did not complete it: the drain
         * after giving back the slot it could not hand over, a refusal after failing it. Runs
         * what waits for that.
         */
        private void slotBack() {
            Runnable waiting = (Runnable) AFTER_SLOT_BACK.getAndSet(this, SLOT_BACK);
            if (waiting != null) {
                runSafely(waiting);
            }
        }

        @Override
        public void whenSlotBack(Runnable action) {
            Objects.requireNonNull(action, "action");
            if (!isDone()) {
                // Not withdrawn yet: the rule applies once it has ended, either way.
                whenComplete((lease, error) -> whenSlotBack(action));
                return;
            }
            if (!isCompletedExceptionally()) {
                action.run(); // it holds its lease: the slot is its holder's, not the taker's
                return;
            }
            // A withdrawal on another thread may have completed it and not yet marked it gone:
            // marking it here settles which came first, its leaving or a drain's take.
            LimiterCore.this.leave(this);
            if (state != TAKEN) {
                action.run(); // gone before any drain took it: no slot was counted for it
                return;
            }
            // Taken, and ended by a withdrawal (the taker's failed completion gives its slot
            // back, then calls slotBack) or by an abort (which calls slotBack after it).
            for (;;) {
                Runnable waiting = afterSlotBack;
                if (waiting == SLOT_BACK) {
                    action.run();
                    return;
                }
                Runnable next = waiting == null ? action : () -> {
                    waiting.run();
                    action.run();
                };
                if (AFTER_SLOT_BACK.compareAndSet(this, waiting, next)) {
                    return;
                }
            }
        }
    }

    /**
     * Runs what waited for a slot to be back, inside the drain or an abort: it must not throw,
     * and if it does, the drain must still go on (a pass that throws leaves the loop claimed
     * and the limiter granting nothing more), so a failure is dropped here.
     */
    private static void runSafely(Runnable action) {
        try {
            action.run();
        } catch (Throwable broken) {
            // Its owner isolates its own callbacks; the limiter's grants must not stop on it.
        }
    }
}
