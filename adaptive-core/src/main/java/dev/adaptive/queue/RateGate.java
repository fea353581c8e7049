package dev.adaptive.queue;

import dev.adaptive.AdmissionGate;
import dev.adaptive.Lease;
import dev.adaptive.limit.Outcome;
import dev.adaptive.internal.Nanos;

import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * A queue's rate as its limiter's {@link AdmissionGate}: pacing ({@link Pacer}), the adaptive
 * rate and its observation windows ({@link RateController}), the back-off after a decision that
 * asks for one, and the hold while the queue is not running. It also counts the attempts, since
 * it hears of every start and every end: started, succeeded, failed, active.
 *
 * <p>Every method takes the queue's lock (the rate strategy, a pure function, runs under it);
 * what a decision posts for later (rate-change listeners, a halt's failed idle waiters) runs
 * from the queue's outbox after the lock is released. The limiter asks
 * {@link #admitAt(long, int)} again after every release, resume and end of a Retry-After pause;
 * what changes the answer from outside those calls (a window's end, the lifecycle) tells it
 * through {@link dev.adaptive.Limiter#gateChanged()}.
 */
final class RateGate implements AdmissionGate {

    private final QueueCore queue;
    private final QueueConfig cfg;
    private final Object lock;
    private final Pacer pacer;
    private final RateController rates;

    // ---- guarded by lock ----
    private boolean backingOff;
    private long backOffUntil;
    private long started;
    private long succeeded;
    private long failed;
    private int active;
    /** After an abort: settlements change no counter. */
    private boolean frozen;

    RateGate(QueueCore queue, QueueConfig cfg) {
        this.queue = queue;
        this.cfg = cfg;
        this.lock = queue.lock;
        this.pacer = new Pacer(cfg.intervalNanos(), cfg.evenlySpaced());
        this.rates = new RateController(cfg, cfg.scheduler(), this::onWindowEnd, pacer, queue.outbox,
                queue.listenerFailures, queue.cancelFailures);
    }

    // ---- the gate ------------------------------------------------------------------------

    @Override
    public long admitAt(long nowNanos, int inflight) {
        return locked(() -> admitAtLocked(nowNanos));
    }

    private long admitAtLocked(long now) {
        for (;;) {
            if (!queue.startsAllowedLocked()) {
                return HOLD;
            }
            if (backingOff) {
                if (backOffUntil - now > 0) {
                    return backOffUntil;
                }
                backingOff = false;
            }
            ObservationWindow window = rates.window();
            if (window != null && cfg.adjustmentTiming() == AdjustmentTiming.SETTLED) {
                if (!window.closedForStarts && now - window.endNanos >= 0) {
                    window.closedForStarts = true; // the window's own timer may lag in real time
                }
                if (window.closedForStarts) {
                    if (window.outstanding > 0) {
                        return HOLD; // the last settlement decides, and the limiter asks again
                    }
                    decideLocked(rates.close(), now);
                    continue; // the decision may have backed off or halted
                }
            }
            return pacer.earliest(now, rates.rate());
        }
    }

    @Override
    public Object started(Lease lease) {
        synchronized (lock) {
            long now = lease.startNanos();
            started++;
            active++;
            pacer.started(now, rates.rate());
            // A hold that began between the admission and now: the start counts, the window does not.
            // A window whose timer the scheduler refuses is not opened, and what it threw reaches the
            // limiter, which counts it as a gate failure; the next start tries again.
            return queue.startsAllowedLocked() ? rates.started(now) : null;
        }
    }

    @Override
    public void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
        boolean failedAttempt = failure != null;
        // User code, asked before the lock is taken.
        boolean counts = failedAttempt && countsAgainstRate(outcome, failure);
        locked(() -> {
            if (frozen) {
                return 0; // abandoned by an abort: no counter
            }
            active--;
            if (failedAttempt) {
                failed++;
            } else {
                succeeded++;
            }
            // Paused or stopped, the window is gone: outcomes then do not move the rate.
            if (queue.runningLocked() && rates.settled((ObservationWindow) ticket, failedAttempt, counts)) {
                decideLocked(rates.close(), nowNanos);
            }
            return 0;
        });
    }

    @Override
    public void unused(Object ticket) {
        locked(() -> {
            if (frozen) {
                return 0;
            }
            started--;
            active--;
            ObservationWindow w = (ObservationWindow) ticket;
            if (rates.unstarted(w) && queue.runningLocked()) {
                decideLocked(rates.close(), nowOrEndOf(w));
            }
            return 0;
        });
    }

    private boolean countsAgainstRate(Outcome outcome, Throwable cause) {
        try {
            return cfg.rateOutcomeClassifier().lowersRate(outcome, cause);
        } catch (Throwable brokenClassifier) {
            return true; // err towards a slower rate, never a faster one
        }
    }

    // ---- observation windows and decisions --------------------------------------------------

    /**
     * The time to end {@code w} at, read before anything changes. Without a reading (the ticker
     * threw, counted), the window ends at its own end, as it would on time: each caller is past
     * that end (its timer fired, or a {@link AdjustmentTiming#SETTLED} window closed for starts
     * saw its last attempt go). Thrown instead, the decision was lost: on the scheduler's
     * thread the window stayed open with no timer, and the rate never moved again; as an unused
     * start was given back, the window had already been closed when the ticker was read.
     */
    private long nowOrEndOf(ObservationWindow w) {
        try {
            return cfg.ticker().nanoTime();
        } catch (Throwable brokenTicker) {
            queue.tickerFailures.failed(brokenTicker);
            return w.endNanos;
        }
    }

    private void onWindowEnd(ObservationWindow w) {
        queue.locked(() -> {
            if (!rates.isOpen(w) || !queue.runningLocked()) {
                return;
            }
            long now = nowOrEndOf(w);
            if (cfg.adjustmentTiming() == AdjustmentTiming.INTERVAL) {
                rates.close();
                if (!decideLocked(w, now)) {
                    return;
                }
                if (queue.hasWorkLocked()) {
                    try {
                        rates.open(w.endNanos, now); // windows follow each other while there is work
                    } catch (Throwable refused) {
                        // The scheduler refused its timer (shut down, say): no window is open, and
                        // the next start opens one, arming it again, as after an idle spell.
                        queue.schedulerFailures.failed(refused);
                    }
                }
            } else {
                w.closedForStarts = true;
                if (w.outstanding == 0) {
                    decideLocked(rates.close(), now);
                }
            }
            queue.gateChangedLocked();
        });
    }

    /** @return {@code false} if the strategy failed and the queue halted */
    private boolean decideLocked(ObservationWindow w, long now) {
        RateDecision d;
        try {
            d = rates.decide(w, now);
        } catch (RateStrategyException e) {
            queue.haltLocked(e, now);
            return false;
        }
        // A window in which nothing started or settled is no news: backing off on it would renew
        // the back-off for ever (an interval of back-off is itself such a window).
        if (d.shouldBackOff() && cfg.backOff() && w.sawAnything()) {
            backingOff = true;
            backOffUntil = Nanos.plus(now, cfg.intervalNanos());
        }
        return true;
    }

    // ---- what the queue's lifecycle does to it (under the lock) ------------------------------

    /** Pause, stop, halt: the window is dropped, with its timer. */
    void holdLocked() {
        rates.close();
    }

    /** Back to running: fresh pacing, and the back-off ends. */
    void restartLocked() {
        backingOff = false;
        pacer.reset();
    }

    /** Abort: the window is dropped, nothing is active any more, and later ends count nothing. */
    void abortLocked() {
        rates.close();
        active = 0;
        frozen = true;
    }

    // ---- views (under the lock) --------------------------------------------------------------

    /** @return when the back-off ends, or {@code now} if none holds */
    long backOffUntilLocked(long now) {
        return backingOff && backOffUntil - now > 0 ? backOffUntil : now;
    }

    /**
     * @return the end of the back-off, if one was decided and no admission has yet seen it end;
     *         for a view without a reading of the ticker
     */
    OptionalLong backOffEndLocked() {
        return backingOff ? OptionalLong.of(backOffUntil) : OptionalLong.empty();
    }

    int rateLocked() {
        return rates.rate();
    }

    long increasesLocked() {
        return rates.increases();
    }

    long decreasesLocked() {
        return rates.decreases();
    }

    long startedLocked() {
        return started;
    }

    long succeededLocked() {
        return succeeded;
    }

    long failedLocked() {
        return failed;
    }

    int activeLocked() {
        return active;
    }

    private long locked(LongSupplier body) {
        try {
            synchronized (lock) {
                return body.getAsLong();
            }
        } finally {
            queue.outbox.drain();
        }
    }
}
