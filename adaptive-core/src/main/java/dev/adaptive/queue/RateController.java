package dev.adaptive.queue;

import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.Listeners;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The adaptive half of a queue's rate: the current rate, the open observation window, and the
 * call to the {@link RateStrategy} that turns a closed window into the next rate. Not
 * thread-safe: the {@link RateGate} calls it under the queue's lock, and handles what a decision
 * means for dispatch (back-off, halting).
 */
final class RateController {

    private final QueueConfig cfg;
    private final Scheduler scheduler;
    /** Called by the scheduler, without the lock, when a window's interval is over. */
    private final Consumer<ObservationWindow> onWindowEnd;
    private final Pacer pacer;
    private final Outbox outbox;
    private final LongAdder listenerFailures;
    private final CallbackFailures cancelFailures;
    private final long intervalNanos;

    private int rate;
    private long increases;
    private long decreases;
    private ObservationWindow window;
    private Cancellable windowTimer;

    /** @param cancelFailures where a cancel of a window's timer that throws is counted */
    RateController(QueueConfig cfg, Scheduler scheduler, Consumer<ObservationWindow> onWindowEnd, Pacer pacer,
                   Outbox outbox, LongAdder listenerFailures, CallbackFailures cancelFailures) {
        this.cfg = cfg;
        this.scheduler = scheduler;
        this.onWindowEnd = onWindowEnd;
        this.pacer = pacer;
        this.outbox = outbox;
        this.listenerFailures = listenerFailures;
        this.cancelFailures = cancelFailures;
        this.intervalNanos = cfg.intervalNanos();
        this.rate = cfg.initialRate();
    }

    int rate() {
        return rate;
    }

    long increases() {
        return increases;
    }

    long decreases() {
        return decreases;
    }

    /** @return the open window, or {@code null} */
    ObservationWindow window() {
        return window;
    }

    /** @return whether {@code w} is the open window: a timer of a replaced window is stale */
    boolean isOpen(ObservationWindow w) {
        return w != null && w == window;
    }

    /**
     * Counts a start, opening a window at {@code now} if none is open.
     *
     * @return its window
     * @throws RuntimeException what the scheduler threw when it refused the new window's timer:
     *                          then no window is open and the start is counted in none, so the
     *                          next start tries again
     */
    ObservationWindow started(long now) {
        if (window == null) {
            open(now, now);
        }
        window.started++;
        window.outstanding++;
        return window;
    }

    /**
     * Opens a window starting at {@code start} (not after {@code now}).
     *
     * @throws RuntimeException what the scheduler threw when it refused the window's timer (a
     *                          shut-down executor's): then no window is open, since one without
     *                          a timer would never end and the rate would stay where it is
     */
    void open(long start, long now) {
        ObservationWindow w = new ObservationWindow(start, intervalNanos);
        window = w; // before the timer, which a scheduler may run at once
        try {
            windowTimer = scheduler.schedule(() -> onWindowEnd.accept(w), w.endNanos - now);
        } catch (Throwable refused) {
            if (window == w) {
                window = null;
            }
            throw refused;
        }
    }

    /**
     * @return the open window, which no longer is; its timer is cancelled, and a cancel that
     *         throws (the user's scheduler) is counted and otherwise ignored: the timer, firing
     *         later, finds that window no longer open, while a throw here would unwind a pause,
     *         a halt or an abort half-done (an abort would leave every job unfailed)
     */
    ObservationWindow close() {
        ObservationWindow w = window;
        if (windowTimer != null) {
            try {
                windowTimer.cancel();
            } catch (Throwable brokenCancel) {
                cancelFailures.failed(brokenCancel); // as above
            }
            windowTimer = null;
        }
        window = null;
        return w;
    }

    /**
     * Records a settled attempt of the running queue.
     *
     * @param startedIn the window the attempt started in
     * @return whether this settled the last attempt of a {@link AdjustmentTiming#SETTLED}
     *         window whose interval is over, so that its decision is due now
     */
    boolean settled(ObservationWindow startedIn, boolean failedAttempt, boolean countsAgainstRate) {
        ObservationWindow w = window;
        if (w == null) {
            return false;
        }
        if (cfg.adjustmentTiming() == AdjustmentTiming.INTERVAL) {
            w.record(failedAttempt, countsAgainstRate);
            return false;
        }
        if (startedIn != w) {
            return false; // started in a window discarded by a pause or stop
        }
        w.outstanding--;
        w.record(failedAttempt, countsAgainstRate);
        return w.closedForStarts && w.outstanding == 0;
    }

    /**
     * Takes back a start that did not happen (its acquisition had left as the slot was granted).
     *
     * @return as {@link #settled}: whether a {@link AdjustmentTiming#SETTLED} decision is now due
     */
    boolean unstarted(ObservationWindow startedIn) {
        if (startedIn == null) {
            return false;
        }
        startedIn.started--;
        startedIn.outstanding--;
        return startedIn == window && cfg.adjustmentTiming() == AdjustmentTiming.SETTLED
                && startedIn.closedForStarts && startedIn.outstanding == 0;
    }

    /**
     * Asks the strategy about a closed window and applies the (bounded) rate it decides.
     *
     * @return the decision, for the queue to act on {@link RateDecision#shouldBackOff()}
     * @throws RateStrategyException if the strategy threw or returned no decision; the rate
     *                               is unchanged
     */
    RateDecision decide(ObservationWindow w, long now) {
        RateObservation obs = w.observe(rate, cfg.minRate(), cfg.maxRate(), cfg.errorsPerInterval(), now);
        RateDecision d;
        try {
            d = cfg.rateStrategy().decide(obs);
        } catch (Throwable t) {
            // An Error too: rethrown, it would unwind the settlement that asked, after the task
            // was counted and before its future completed.
            throw new RateStrategyException("rate strategy of queue '" + cfg.name() + "' threw on " + obs, t);
        }
        if (d == null) {
            throw new RateStrategyException("rate strategy of queue '" + cfg.name() + "' returned no decision for "
                    + obs, null);
        }
        apply(obs.clamp(d.nextRate()), now);
        return d;
    }

    private void apply(int next, long now) {
        int from = rate;
        if (next == from) {
            return;
        }
        rate = next;
        if (next > from) {
            increases++;
        } else {
            decreases++;
        }
        pacer.rateChanged();
        List<RateChangeListener> listeners = cfg.rateListeners();
        if (!listeners.isEmpty()) {
            // Posted under the lock, so listeners hear changes in the order they were made.
            outbox.post(() -> Listeners.each(listeners, l -> l.onRateChange(from, next, now), listenerFailures));
        }
    }
}
