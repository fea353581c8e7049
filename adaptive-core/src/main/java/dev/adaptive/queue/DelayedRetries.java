package dev.adaptive.queue;

import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.Nanos;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The backoff waits of the queue's retries, which the executor hands over to it (see
 * {@link dev.adaptive.spi.ExecutionHooks#delayRetry}). While the queue runs, each is armed on the
 * scheduler; while it does not, each is frozen with the delay it has left, so a pause or stop
 * neither shortens nor lengthens a backoff, and a held queue keeps no timer for them. The
 * retries themselves, what they wait for and when they give up, are the executor's. Not
 * thread-safe: the queue calls it under its lock.
 */
final class DelayedRetries {

    /**
     * One retry waiting out its delay: armed (timer set, due at dueNanos if dueKnown) or frozen
     * (timer null, remainingNanos kept). Armed, remainingNanos is the delay its timer was given.
     */
    static final class Wait {
        final Runnable retry;
        Cancellable timer;
        Object timerToken;
        long dueNanos;
        /** Whether dueNanos was read: {@code false} for a wait armed without a reading of the ticker. */
        boolean dueKnown;
        long remainingNanos;

        Wait(Runnable retry, long delayNanos) {
            this.retry = retry;
            this.remainingNanos = delayNanos;
        }
    }

    private final Scheduler scheduler;
    /** Called by the scheduler, without the lock, with the wait and the token of its timer. */
    private final BiConsumer<Wait, Object> onDue;
    private final Set<Wait> waits = new LinkedHashSet<>();
    private final CallbackFailures refusals;
    private final CallbackFailures cancelFailures;

    /**
     * @param refusals       where a wait the scheduler refuses to arm again on a thaw is counted
     * @param cancelFailures where a cancel of a wait's timer that throws is counted
     */
    DelayedRetries(Scheduler scheduler, BiConsumer<Wait, Object> onDue, CallbackFailures refusals,
                   CallbackFailures cancelFailures) {
        this.scheduler = scheduler;
        this.onDue = onDue;
        this.refusals = refusals;
        this.cancelFailures = cancelFailures;
    }

    /**
     * @param delayNanos the delay, positive
     * @param armed      whether the queue runs; if not, the delay stays frozen until {@link #thaw}
     * @return the wait
     */
    Wait add(Runnable retry, long delayNanos, boolean armed, long now) {
        Wait w = new Wait(retry, delayNanos);
        if (armed) {
            arm(w, now); // a scheduler that rejects throws here: nothing is kept
        }
        waits.add(w);
        return w;
    }

    /**
     * As {@link #add} for a running queue without a reading of the ticker (it threw): the wait
     * is armed by its delay alone, and a {@link #freeze} keeps its whole delay, not knowing how
     * much of it has passed.
     *
     * @param delayNanos the delay, positive
     * @return the wait
     */
    Wait addUnread(Runnable retry, long delayNanos) {
        Wait w = new Wait(retry, delayNanos);
        schedule(w); // a scheduler that rejects throws here: nothing is kept
        waits.add(w);
        return w;
    }

    /**
     * @return {@code true}, and the wait is over, if {@code token} is its current timer;
     *         {@code false} for a timer that was frozen, cancelled or cleared meanwhile
     */
    boolean takeIfCurrent(Wait w, Object token) {
        if (w.timerToken != token || !waits.remove(w)) {
            return false;
        }
        w.timer = null;
        w.timerToken = null;
        return true;
    }

    /** Drops a wait whose retry is no longer wanted. */
    void remove(Wait w) {
        if (waits.remove(w)) {
            disarm(w);
        }
    }

    /**
     * Cancels every timer, keeping what each delay has left; a wait armed without a reading
     * keeps the whole delay it was armed with.
     */
    void freeze(long now) {
        for (Wait w : waits) {
            if (w.timer != null) {
                disarm(w);
                if (w.dueKnown) {
                    w.remainingNanos = Math.max(0, Nanos.between(now, w.dueNanos));
                }
            }
        }
    }

    /** @return the waits with nothing left, removed, in the order they began; the others are armed again */
    List<Wait> thaw(long now) {
        List<Wait> ready = new ArrayList<>();
        for (Wait w : new ArrayList<>(waits)) {
            if (w.timer != null) {
                continue;
            }
            if (w.remainingNanos > 0) {
                try {
                    arm(w, now);
                    continue;
                } catch (Throwable rejected) {
                    // Its wait cannot be timed (a scheduler that rejects): better early than never,
                    // and the thaw goes on for the others.
                    refusals.failed(rejected);
                    w.timer = null;
                    w.timerToken = null;
                }
            }
            waits.remove(w);
            ready.add(w);
        }
        return ready;
    }

    /** Disarms and forgets every wait: their executions are being cancelled. */
    void clear() {
        waits.forEach(this::disarm);
        waits.clear();
    }

    int size() {
        return waits.size();
    }

    private void arm(Wait w, long now) {
        w.dueNanos = Nanos.plus(now, w.remainingNanos);
        w.dueKnown = true;
        schedule(w);
    }

    /** Arms {@code w}'s timer for its {@code remainingNanos}, with a fresh token. */
    private void schedule(Wait w) {
        Object token = new Object();
        w.timerToken = token;
        w.timer = scheduler.schedule(() -> onDue.accept(w, token), w.remainingNanos);
    }

    /**
     * A cancel that throws (the user's scheduler) is ignored: the timer, firing later, no longer
     * holds the wait's token and does nothing, while a throw here would unwind a freeze, a
     * withdrawal or an abort half-done. It is counted.
     */
    private void disarm(Wait w) {
        if (w.timer != null) {
            Cancellable timer = w.timer;
            w.timer = null;
            w.timerToken = null;
            try {
                timer.cancel();
            } catch (Throwable brokenCancel) {
                // As above.
                cancelFailures.failed(brokenCancel);
            }
        }
    }
}
