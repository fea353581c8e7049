package dev.adaptive;

import dev.adaptive.internal.OptionChecks;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The gate around a {@link Limit}: it decides how many calls may be in flight, queues the
 * rest without blocking a thread, and pauses all dispatch while a Retry-After window is open.
 *
 * <ul>
 *   <li>{@link #tryAcquire()} sheds: a lease if a slot is free, nothing otherwise.</li>
 *   <li>{@link #acquire()} queues: a future that completes with a lease when a slot frees up,
 *       first come first served. A freed slot goes straight to the next waiter.</li>
 *   <li>{@link Lease#release(Outcome)} feeds the attempt's sample to the limit; a
 *       {@link Outcome.RateLimited} with a positive Retry-After pauses all dispatch until then
 *       (capped by {@link Builder#maxRetryAfter(Duration)}); the scheduler ends the pause.</li>
 *   <li>An optional {@link AdmissionGate} ({@link Builder#gate(AdmissionGate)}) must also
 *       consent to every start: a rate, a quota, a hold. Without one, nothing of it is on the
 *       acquire and release paths.</li>
 *   <li>A release whose outcome carries the {@link dev.adaptive.retry.Quota} the server
 *       announced ({@link Outcome#quota()}) bounds what may be in flight by what remains of it,
 *       until its reset (capped by {@code maxRetryAfter}): while what remains is at or below
 *       what is in flight, nothing starts, so the quota's last request is not followed by a 429.
 *       With {@link Builder#quotaSpread(boolean)} the remaining starts are also spread evenly
 *       over the time to the reset.</li>
 *   <li>The {@link RetryBudget} ({@link Builder#retryBudget(RetryBudget)}) caps the retries of
 *       every {@link AdaptiveExecutor} on this limiter as a share of their first attempts.</li>
 *   <li>An <b>outage</b> (a run of errors and timeouts that a call sent after its first failed
 *       too, no success between them; see {@link Builder#outageProbe(Duration)}) turns
 *       dispatch into probes, one at a time, at growing intervals, first attempts where any
 *       wait, until a call succeeds: a server that fails everything without a Retry-After gets
 *       a trickle instead of every queued call and every retry, and queued work keeps its
 *       retries for after the outage.</li>
 * </ul>
 *
 * <p>Thread-safe. Acquire and release are lock-free: in-flight is one atomic counter and the
 * limit's state is an immutable value swapped by compare-and-set, so no sample waits on a
 * monitor. Time is read only through the {@link Ticker} and waited only through the
 * {@link Scheduler}, so a limiter runs unchanged in {@link dev.adaptive.time.VirtualTime}.
 *
 * <p>Lifecycle: see {@link LimiterState}. A queued acquisition that leaves (timeout, cancel)
 * does so in constant time, and {@link #abort()} fails n waiters in O(n).
 */
public final class Limiter {

    /** Default cap on a Retry-After pause: {@link RetryAfter#DEFAULT_MAX}, 10 minutes. */
    public static final Duration DEFAULT_MAX_RETRY_AFTER = RetryAfter.DEFAULT_MAX;
    /** Default limit before any sample: {@value}, moved into [minLimit, maxLimit]. */
    public static final int DEFAULT_INITIAL_LIMIT = 5;
    /** Default lowest limit: {@value}. */
    public static final int DEFAULT_MIN_LIMIT = 1;
    /** Default highest limit: {@value}. */
    public static final int DEFAULT_MAX_LIMIT = 100;
    /** Default bound on acquisitions waiting for a slot: {@value}. */
    public static final int DEFAULT_MAX_QUEUE_SIZE = 10_000;
    /** Default longest wait between two probes of an outage: 1 second. */
    public static final Duration DEFAULT_OUTAGE_PROBE = Duration.ofSeconds(1);
    /** Highest {@link Builder#outageProbe(Duration)}: 1 hour. */
    public static final Duration MAX_OUTAGE_PROBE = Duration.ofHours(1);

    private final LimiterCore core;

    private Limiter(Builder b) {
        this.core = new LimiterCore(b.name, b.limit, b.ticker, b.scheduler, b.adapt, b.maxQueueSize, b.waitTimeout,
                b.maxRetryAfter, List.copyOf(b.traceListeners), List.copyOf(b.limitListeners), b.gate, b.quotaSpread,
                b.retryBudget, b.outageProbe);
    }

    /** @return a builder with every default */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return a limiter with every default: {@link Vegas} from 5 within [1, 100], real time, at most
     *         {@value #DEFAULT_MAX_QUEUE_SIZE} acquisitions queued
     */
    public static Limiter create() {
        return builder().build();
    }

    /**
     * @return a lease if a slot is free, no pause holds dispatch, nobody is queued and the
     *         {@link AdmissionGate}, if there is one, admits a start now; empty otherwise
     */
    public Optional<Lease> tryAcquire() {
        return Optional.ofNullable(core.tryAcquire());
    }

    /**
     * Queues for a slot. Never blocks. The future fails with {@link LimiterClosedException}
     * after stop or abort, with {@link RejectedException} when {@code maxQueueSize} are already
     * queued, and with {@link AcquireTimeoutException} after the wait timeout. Cancelling the
     * future withdraws from the queue; a lease granted to a cancelled future is given back.
     * As for any {@link java.util.concurrent.Future}, once {@code cancel} has returned
     * {@code true} the future is done and cancelled. A cancel (or the wait timeout) that lands
     * while another thread is granting the future a slot does not wait for that thread: the
     * slot is counted in {@link #inflight()} until that thread gives it back, unused, a moment
     * later.
     *
     * @return a future lease
     */
    public CompletableFuture<Lease> acquire() {
        return core.acquire();
    }

    /** Stops granting leases until {@link #resume()}. Queued waiters stay queued. */
    public void pause() {
        core.pause();
    }

    /** Resumes after {@link #pause()}; does nothing in other states. */
    public void resume() {
        core.resume();
    }

    /** Refuses new acquisitions; queued waiters are still served as slots free up. Terminal. */
    public void stop() {
        core.stop();
    }

    /** Refuses new acquisitions and fails every queued waiter with {@link LimiterClosedException}. Terminal. */
    public void abort() {
        core.abort();
    }

    /**
     * Opens a Retry-After pause from now, as a rate-limited release would, without a sample. Used
     * by fleet coordinators and by faces that learn of a rate limit out of band. If the
     * {@link Ticker} throws when read for "now" (anything, an {@code Error} too), this throws it
     * and nothing is changed: no pause is opened, nothing is counted.
     *
     * @param retryAfter the wait; capped by {@code maxRetryAfter}; zero or negative does nothing
     */
    public void pauseFor(Duration retryAfter) {
        core.pauseFor(retryAfter);
    }

    /**
     * Opens a Retry-After pause from now, as {@link #pauseFor(Duration)} does, for a caller that
     * must not lose it (a fleet member applying a pause another node announced). If the
     * {@link Ticker} throws when read for "now" (anything, an {@code Error} too), the pause is
     * opened all the same, and nothing is thrown: the throw is counted in
     * {@link LimiterStats#limitFailures()}, and the pause is held by the {@link Scheduler}, by
     * delay from this call, for its whole length (capped by {@code maxRetryAfter}), whatever the
     * pause already open; one opened later does not cut it short. {@code lastReadingNanos} then
     * stands for now in its recorded end, so {@link #pausedUntilNanos()} reads early by that
     * reading's age; if the caller has none either ({@link Long#MIN_VALUE}), the pause has no
     * known end: {@link #pausedUntilNanos()} reads {@link Long#MAX_VALUE} and
     * {@link #remainingPause()} its whole length, until a pause opened with a reading extends
     * it, or it ends.
     *
     * @param retryAfter       the wait; capped by {@code maxRetryAfter}; zero or negative does nothing
     * @param lastReadingNanos the caller's latest reading of this limiter's ticker, made no later
     *                         than this call; {@link Long#MIN_VALUE} if it has none
     */
    public void pauseFor(Duration retryAfter, long lastReadingNanos) {
        core.pauseFor(retryAfter, lastReadingNanos);
    }

    /**
     * Opens (or extends) a Retry-After pause until an absolute ticker reading. If the
     * {@link Ticker} throws when read for "now" (anything, an {@code Error} too), this throws it
     * and nothing is changed: no pause is opened, nothing is counted.
     *
     * @param untilNanos when dispatch may resume; capped at now + {@code maxRetryAfter}
     */
    public void pauseUntil(long untilNanos) {
        core.pauseUntil(untilNanos);
    }

    /**
     * Tells the limiter that its {@link AdmissionGate}'s answer may have changed outside the
     * limiter's own calls to it (a window closed, a lifecycle hold began or ended, a rate
     * changed): the wake-up armed for the gate's last "not before" is dropped and the gate is
     * asked again at once. Thread-safe, never blocks, and may be called from the gate's own
     * methods. Does nothing without a gate.
     */
    public void gateChanged() {
        core.gateChanged();
    }

    /**
     * Bounds the limit from outside, for a fleet {@code Coordinator}'s share. Leases already
     * granted stay valid when the ceiling falls below the in-flight count; new ones wait until
     * in-flight is below it again. A {@link Ticker} that throws as the ceiling is set does not
     * keep it from applying (the limit, the listeners, the queued acquisitions a raised one
     * admits): only the {@link TraceEvent.ConcurrencyChange} event, which needs a time, is
     * dropped, and the failure is counted in {@link LimiterStats#limitFailures()}.
     *
     * @param ceiling the bound, at least 0; 0 admits nothing (a fleet member that holds no share
     *                yet); {@link Integer#MAX_VALUE} removes it (the default)
     */
    public void ceiling(int ceiling) {
        if (ceiling < 0) {
            throw new IllegalArgumentException("ceiling must be >= 0: " + ceiling);
        }
        core.ceiling(ceiling);
    }

    /** @return the bound set by {@link #ceiling(int)}; {@link Integer#MAX_VALUE} when none */
    public int ceiling() {
        return core.ceilingValue();
    }

    /**
     * Sets how many calls other clients of the same backend have in flight (a fleet's other
     * members, as last reported), for a fleet {@code Coordinator}. The limit's samples then
     * record this limiter's in flight plus that number, so the algorithm judges its latencies
     * and refusals against the load the whole fleet puts on the backend, and its limit
     * estimates what the backend takes in total. Admission is not affected:
     * {@link #inflight()}, {@link Lease#inflightAtStart()} and the ceiling stay this limiter's.
     *
     * @param others at least 0; 0 (the default) for a limiter alone
     */
    public void othersInflight(int others) {
        if (others < 0) {
            throw new IllegalArgumentException("othersInflight must be >= 0: " + others);
        }
        core.othersInflight(others);
    }

    /** @return the count set by {@link #othersInflight(int)}; 0 by default */
    public int othersInflight() {
        return core.othersInflight();
    }

    /**
     * Folds into the limit a rate limit (a 429 with Retry-After) that another client of the same
     * backend met, as if a call of this limiter, admitted now with the fleet's in flight
     * ({@link #inflight()} plus {@link #othersInflight()}), had been refused: the fleet's
     * refusal is this limit's signal too. Opens no pause (the fleet's pause is applied with
     * {@link #pauseUntil(long)}). Does nothing when the limiter does not adapt on rate limits.
     * A {@link Ticker} that throws when read for the fold drops that sample, as at a release,
     * and is counted in {@link LimiterStats#limitFailures()}; nothing is thrown.
     *
     * @param retryAfter the wait the other client was told
     */
    public void rateLimitedElsewhere(Duration retryAfter) {
        core.foldRateLimitElsewhere(Objects.requireNonNull(retryAfter, "retryAfter"));
    }

    /**
     * Adds, at run time, a listener told when a call starts to wait for a slot while none was
     * waiting, on the thread that queued it: the limiter's demand grew past what it admits. For
     * fleet members, which then report their demand at once rather than at their next sync.
     * Must be fast; a listener that throws is counted in {@link LimiterStats#listenerFailures()}.
     * Adding one listener twice registers it twice. Without listeners nothing is done.
     *
     * @param listener the listener
     */
    public void addQueueListener(Runnable listener) {
        core.addQueueListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes one registration of a listener added by {@link #addQueueListener(Runnable)}.
     *
     * @param listener the listener, compared by identity
     * @return whether it was registered
     */
    public boolean removeQueueListener(Runnable listener) {
        return core.removeQueueListener(listener);
    }

    /**
     * Adds, at run time, a listener told when a release (or a lease given back unused) leaves no
     * call in flight, on the releasing thread, once the release is done. For fleet members, which
     * leave the fleet once the calls they still had when closed have ended, with no timer of
     * their own to look. A hint: by the time it is told, a call may have been admitted again.
     * Must be fast; a listener that throws is counted in {@link LimiterStats#listenerFailures()}.
     * Adding one listener twice registers it twice. Without listeners nothing is done.
     *
     * @param listener the listener
     */
    public void addIdleListener(Runnable listener) {
        core.addIdleListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes one registration of a listener added by {@link #addIdleListener(Runnable)}.
     *
     * @param listener the listener, compared by identity
     * @return whether it was registered
     */
    public boolean removeIdleListener(Runnable listener) {
        return core.removeIdleListener(listener);
    }

    /**
     * Adds, at run time, a listener told when the local limit ({@link #localLimit()}, the
     * algorithm's limit before any {@link #ceiling(int)}) moves, on the thread whose sample (or
     * fold) moved it, whether or not the ceiling binds. For fleet members, which then report it
     * at once rather than at their next sync. A hint, not a count: folds racing on several
     * threads may report one move twice or two moves as one. Must be fast; a listener that
     * throws is counted in {@link LimiterStats#listenerFailures()}. Adding one listener twice
     * registers it twice. Without listeners nothing is done.
     *
     * @param listener told the old and the new local limit
     */
    public void addLocalLimitListener(LimitChangeListener listener) {
        core.addLocalLimitListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes one registration of a listener added by {@link #addLocalLimitListener(LimitChangeListener)}.
     *
     * @param listener the listener, compared by identity
     * @return whether it was registered
     */
    public boolean removeLocalLimitListener(LimitChangeListener listener) {
        return core.removeLocalLimitListener(listener);
    }

    /**
     * Adds, at run time, a listener told of every Retry-After pause this limiter opens or
     * extends: after a rate-limited release, {@link #pauseFor(Duration)} or
     * {@link #pauseUntil(long)}. For fleet members, which attach to a limiter after it is built
     * and must not turn on full tracing to see the rare pause. Called synchronously on the
     * thread that opened the pause; must be fast. A listener that throws is counted in
     * {@link LimiterStats#listenerFailures()}. Adding one listener twice registers it twice.
     *
     * @param listener receives the pause, as the {@link TraceEvent.RatePause} a trace listener would
     */
    public void addRatePauseListener(Consumer<TraceEvent.RatePause> listener) {
        core.addRatePauseListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes one registration of a listener added by {@link #addRatePauseListener(Consumer)}.
     *
     * @param listener the listener, compared by identity
     * @return whether it was registered
     */
    public boolean removeRatePauseListener(Consumer<TraceEvent.RatePause> listener) {
        return core.removeRatePauseListener(listener);
    }

    /**
     * Adds a listener told when an outage begins and when it ends (see
     * {@link Builder#outageProbe(Duration)}): for a runner that must offer the probes work (a
     * pool whose intake is full of items waiting for their retries), or an operator's alert,
     * without full tracing. Called synchronously on the thread that released the call that
     * began or ended the outage; must be fast. A listener that throws is counted in
     * {@link LimiterStats#listenerFailures()}. Adding one listener twice registers it twice.
     *
     * @param listener receives the change, as the {@link TraceEvent.Outage} a trace listener would
     */
    public void addOutageListener(Consumer<TraceEvent.Outage> listener) {
        core.addOutageListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes one registration of a listener added by {@link #addOutageListener(Consumer)}.
     *
     * @param listener the listener, compared by identity
     * @return whether it was registered
     */
    public boolean removeOutageListener(Consumer<TraceEvent.Outage> listener) {
        return core.removeOutageListener(listener);
    }

    /**
     * @return whether an outage is on: the limiter admits one probe at a time until a call
     *         succeeds (see {@link Builder#outageProbe(Duration)})
     */
    public boolean isOutage() {
        return core.isOutage();
    }

    /**
     * Adds, at run time, a listener told of every {@link TraceEvent}, as one given to
     * {@link Builder#traceListener(TraceListener)} is: for a metrics binder or a debugging
     * session that attaches to a limiter built elsewhere. While any trace listener is
     * registered, the runners on this limiter build their events (one small object per attempt
     * start, end, fold and retry); without one they build none. A listener that throws is
     * counted in {@link LimiterStats#listenerFailures()}. Adding one listener twice registers it
     * twice.
     *
     * @param listener the listener
     */
    public void addTraceListener(TraceListener listener) {
        core.addTraceListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes one registration of a trace listener, whether given to the builder or added by
     * {@link #addTraceListener(TraceListener)}.
     *
     * @param listener the listener, compared by identity
     * @return whether it was registered
     */
    public boolean removeTraceListener(TraceListener listener) {
        return core.removeTraceListener(listener);
    }

    /**
     * @return how long the open Retry-After pause still holds dispatch; {@link Duration#ZERO} when
     *         none is open; its whole length if the {@link Ticker} throws when read for it (counted
     *         in {@link LimiterStats#limitFailures()}): a view answers, since the runners read it
     *         where a throw would lose their end; its whole length too, without a reading, while
     *         it has no known end (see {@link #pausedUntilNanos()})
     */
    public Duration remainingPause() {
        return core.remainingPause();
    }

    /** @return the current effective limit: the algorithm's limit, bounded by the ceiling */
    public int limit() {
        return core.limit();
    }

    /** @return the algorithm's own limit, before any fleet ceiling */
    public int localLimit() {
        return core.localLimit();
    }

    /** @return leases granted and not yet released */
    public int inflight() {
        return core.inflight();
    }

    /** @return acquisitions queued */
    public int waiting() {
        return core.waiting();
    }

    /** @return the lifecycle state */
    public LimiterState state() {
        return core.state();
    }

    /** @return whether a Retry-After pause is open */
    public boolean isRatePaused() {
        return core.isRatePaused();
    }

    /**
     * @return what the server last announced remains of its quota in the open window, less the
     *         answers since that announced nothing; -1 when no window is open
     */
    public long quotaRemaining() {
        return core.quotaRemaining();
    }

    /** @return the ticker reading at which the open quota window renews, or 0 if none is open */
    public long quotaResetNanos() {
        return core.quotaResetNanos();
    }

    /** @return the retry budget shared by the retries through this limiter */
    public RetryBudget retryBudget() {
        return core.retryBudget();
    }

    /**
     * @return the ticker reading at which the current Retry-After pause ends, or 0 if none;
     *         {@link Long#MAX_VALUE} while the open pause has no known end: one opened by
     *         {@link #pauseFor(Duration, long)} with neither a reading of the ticker (it threw) nor
     *         one of the caller's ({@link Long#MIN_VALUE}), as by a fleet member whose ticker has
     *         thrown since it joined. Such a pause is still held by its timer for its whole
     *         length from the call (then this reads 0), and a pause opened with a reading, which
     *         extends it, gives it a known end
     */
    public long pausedUntilNanos() {
        return core.pausedUntilNanos();
    }

    /** @return a snapshot of the counters */
    public LimiterStats stats() {
        return core.stats();
    }

    /** @return the algorithm */
    public Limit algorithm() {
        return core.algorithm();
    }

    /** @return the algorithm's current state, with its metrics */
    public LimitState limitState() {
        return core.limitState();
    }

    /** @return the ticker this limiter reads */
    public Ticker ticker() {
        return core.ticker();
    }

    /** @return the scheduler this limiter waits on */
    public Scheduler scheduler() {
        return core.scheduler();
    }

    /** @return the name given at build time */
    public String name() {
        return core.name();
    }

    LimiterCore core() {
        return core;
    }

    @Override
    public String toString() {
        return "Limiter[" + core.name() + ", " + stats() + "]";
    }

    /**
     * Builds a {@link Limiter}. Not thread-safe; {@link #build()} copies every option, so a
     * builder may be reused. {@link dev.adaptive.config.AdaptiveConfig#limiterBuilder()} gives
     * one set from the options every face shares.
     */
    public static final class Builder {
        private static final Limit DEFAULT_LIMIT = Vegas.builder().initialLimit(DEFAULT_INITIAL_LIMIT)
                .minLimit(DEFAULT_MIN_LIMIT).maxLimit(DEFAULT_MAX_LIMIT).build();

        private String name = "limiter";
        private Limit limit = DEFAULT_LIMIT;
        private Ticker ticker = Ticker.system();
        private Scheduler scheduler = Scheduler.system();
        private Adapt adapt = Adapt.all();
        private int maxQueueSize = DEFAULT_MAX_QUEUE_SIZE;
        private Duration waitTimeout;
        private Duration maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;
        private final List<TraceListener> traceListeners = new ArrayList<>();
        private final List<LimitChangeListener> limitListeners = new ArrayList<>();
        private AdmissionGate gate;
        private boolean quotaSpread;
        private RetryBudget retryBudget = RetryBudget.defaults();
        private Duration outageProbe = DEFAULT_OUTAGE_PROBE;

        private Builder() {
        }

        /**
         * @param name used in messages, log lines and trace events ({@code TraceEvent.limiter()});
         *             default {@code "limiter"}
         * @return this
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * The algorithm. The limiter keeps its limit within [max(1, {@link Limit#minLimit()}),
         * max(that, {@link Limit#maxLimit()})], whatever the states say, so a limit of 0 or
         * below still admits one call and one above the maximum grants only the maximum. A fold
         * that throws (anything, an {@code Error} included) or returns {@code null} changes
         * nothing: the limiter keeps the state it had, as if that sample had not come, and
         * counts it in {@link LimiterStats#limitFailures()}; the release that carried the
         * sample still frees its slot.
         *
         * @param limit the algorithm; default {@link Vegas} starting at {@value #DEFAULT_INITIAL_LIMIT}
         *              within [{@value #DEFAULT_MIN_LIMIT}, {@value #DEFAULT_MAX_LIMIT}]
         * @return this
         */
        public Builder limit(Limit limit) {
            this.limit = Objects.requireNonNull(limit, "limit");
            return this;
        }

        /**
         * @param ticker the time source; default {@link Ticker#system()}
         * @return this
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * @param scheduler the waits; default {@link Scheduler#system()}
         * @return this
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Sets ticker and scheduler from one object, such as {@link dev.adaptive.time.VirtualTime}.
         *
         * @param time both
         * @param <T>  a ticker that is also a scheduler
         * @return this
         */
        public <T extends Ticker & Scheduler> Builder time(T time) {
            return ticker(time).scheduler(time);
        }

        /**
         * @param adapt which signals move the limit; default {@link Adapt#all()}
         * @return this
         */
        public Builder adapt(Adapt adapt) {
            this.adapt = Objects.requireNonNull(adapt, "adapt");
            return this;
        }

        /**
         * @param maxQueueSize bound on acquisitions waiting for a slot, at least 0 (0: shed when
         *                     full); default {@value #DEFAULT_MAX_QUEUE_SIZE}; beyond it
         *                     {@link #acquire()} fails with {@link RejectedException}
         * @return this
         */
        public Builder maxQueueSize(int maxQueueSize) {
            if (maxQueueSize < 0) {
                throw new IllegalArgumentException("maxQueueSize must be >= 0: " + maxQueueSize);
            }
            this.maxQueueSize = maxQueueSize;
            return this;
        }

        /**
         * @param waitTimeout how long one acquisition may queue, positive; default none
         * @return this
         */
        public Builder waitTimeout(Duration waitTimeout) {
            if (waitTimeout != null && (waitTimeout.isNegative() || waitTimeout.isZero())) {
                throw new IllegalArgumentException("waitTimeout must be positive: " + waitTimeout);
            }
            this.waitTimeout = waitTimeout;
            return this;
        }

        /**
         * @param maxRetryAfter cap on one Retry-After pause, positive; default {@link #DEFAULT_MAX_RETRY_AFTER}
         * @return this
         */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            if (maxRetryAfter == null || maxRetryAfter.isNegative() || maxRetryAfter.isZero()) {
                throw new IllegalArgumentException("maxRetryAfter must be positive: " + maxRetryAfter);
            }
            this.maxRetryAfter = maxRetryAfter;
            return this;
        }

        /**
         * @param listener receives every trace event; may be called several times
         * @return this
         */
        public Builder traceListener(TraceListener listener) {
            traceListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @param listener told of every limit change; may be called several times
         * @return this
         */
        public Builder limitChangeListener(LimitChangeListener listener) {
            limitListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * An admission gate that must consent to every start besides a free slot, as
         * {@link AdmissionGate} describes: the queue's rate pacing is one. A limiter built
         * with a gate queues every {@link Limiter#acquire()} and grants through its drain, so
         * that the gate is asked one start at a time.
         *
         * @param gate the gate, or {@code null} for none (the default)
         * @return this
         */
        public Builder gate(AdmissionGate gate) {
            this.gate = gate;
            return this;
        }

        /**
         * Whether the starts a server's announced quota still allows are spread evenly over the
         * time to its reset, instead of going out as fast as the limit allows (and then holding
         * until the reset). Spreading keeps a steady rate against a quota; a limiter that
         * spreads queues every acquisition and grants through its drain, as one with a gate does.
         *
         * @param quotaSpread whether to spread; default {@code false}
         * @return this
         */
        public Builder quotaSpread(boolean quotaSpread) {
            this.quotaSpread = quotaSpread;
            return this;
        }

        /**
         * @param retryBudget the cap on retries, shared by every retry through this limiter;
         *                    default {@link RetryBudget#defaults()}; {@link RetryBudget#unlimited()}
         *                    for none
         * @return this
         */
        public Builder retryBudget(RetryBudget retryBudget) {
            this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
            return this;
        }

        /**
         * How the limiter meets an outage: a run of errors or timeouts (not rate limits), at
         * least one of them from a call sent after the first was read, no success or rate limit
         * between them from such a call, and five more of them than successes of older calls
         * (calls sent together are one look at the server; those sent before the first failure
         * say what it was, not what it is: when a dependency breaks, what the server was
         * serving still succeeds). A success of
         * such an older call during an outage makes the next probe due at once (a server over
         * its cap refuses the newest calls while it still serves the older).
         * While it lasts the limiter admits one call at a time, a probe: the first
         * {@code maxInterval / 8} after the outage began, each next one twice the wait before
         * it after the failed probe's answer, at most {@code maxInterval}; a first attempt
         * where one waits, so that work that already failed does not spend its retries on the
         * outage. The first success or rate limit read ends it, and dispatch goes on at the
         * limit the algorithm has by then. Events: {@link TraceEvent.Outage},
         * {@link LimiterStats#outages()}, an INFO line each way.
         *
         * @param maxInterval the longest wait between two probes, at most 1 hour; default
         *                    {@link #DEFAULT_OUTAGE_PROBE} (1 s); {@link Duration#ZERO} turns the
         *                    rule off, and every call and retry is then dispatched into the
         *                    outage at the limit
         * @return this
         */
        public Builder outageProbe(Duration maxInterval) {
            this.outageProbe = OptionChecks.between("outageProbe", maxInterval, Duration.ZERO, MAX_OUTAGE_PROBE);
            return this;
        }

        /** @return a new limiter */
        public Limiter build() {
            return new Limiter(this);
        }
    }
}
