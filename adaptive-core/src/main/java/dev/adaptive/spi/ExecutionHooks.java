package dev.adaptive.spi;

import dev.adaptive.limit.Outcome;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;

/**
 * What a runner that tracks its executions is told by one of them, and the one wait it may
 * take over: a runner with a lifecycle of its own (a queue that can be paused) freezes a
 * retry's backoff while it holds. Passed to
 * {@link dev.adaptive.AdaptiveExecutor#start(long, dev.adaptive.AsyncTask, dev.adaptive.Lease, ExecutionHooks)}. The execution calls these
 * on the thread that made the change, never under a lock of its own; they must be fast and
 * must not block.
 *
 * <p>Part of the runner SPI, with {@link Execution}.
 */
public interface ExecutionHooks {

    /** No hooks: retry waits go to the limiter's scheduler. */
    ExecutionHooks NONE = new ExecutionHooks() {
    };

    /**
     * Waits out the delay before a retry, then runs {@code retry}, which queues the retry for
     * a lease. Called once for every retry the execution decides; each further backoff of a
     * retry the retry budget refused at the end of one goes to {@link #delayRefusedRetry}
     * instead, whose default calls this. A retry is traced
     * ({@link dev.adaptive.trace.TraceEvent.Retry}) and counted in the limiter's stats once this
     * call has returned, or as {@code retry} first runs if that comes first: its event always
     * precedes its attempt. The default runs {@code retry} at once for a delay of 0 or
     * less, and otherwise schedules it on {@code scheduler}.
     *
     * <p>Whatever the runner does, no slot is lost: {@code retry} runs only on its first call,
     * and a call after the execution ended does nothing. For a delay of 0 with
     * {@link #retriesFirst()}, the retry's acquisition is already queued and may be granted
     * a slot before the call: that slot waits for the call, and goes back when the
     * execution ends first (cancelled, say, which also cancels the returned wait). A throw
     * (anything) ends the execution with its last failure, the throw suppressed in it, and the
     * retry, unless {@code retry} ran before it, is neither traced nor counted; a
     * returned wait whose {@code cancel()} throws is treated as cancelled.
     *
     * @param retry      queues the retry; call it once, on any thread, never under a lock
     *                   the engine may need; for a delay of 0, at once (with
     *                   {@link #retriesFirst()} its acquisition is already queued, and
     *                   a slot granted to it waits for this call)
     * @param delayNanos the backoff; 0 when the retry may queue at once (after a Retry-After,
     *                   whose pause the limiter holds)
     * @param scheduler  the limiter's scheduler
     * @return what cancels the wait if the execution ends first, or {@code null} if
     *         {@code retry} has already run
     */
    default Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
        if (delayNanos <= 0) {
            retry.run();
            return null;
        }
        return scheduler.schedule(retry, delayNanos);
    }

    /**
     * Waits out a further backoff of a retry the retry budget refused at the end of its last
     * one, then runs {@code retry}, which asks the budget again. It is the same retry, waiting
     * again, not a new one: it was traced and counted when it was decided (its first wait went
     * to {@link #delayRetry}), and is not again. A runner that counts the retries it is handed
     * tells the two apart here, which {@code delayRetry}'s arguments alone cannot. Otherwise as
     * {@link #delayRetry}: {@code retry} runs only on its first call and never after the
     * execution ended, a throw (anything) ends the execution with its last failure, and a
     * returned wait whose {@code cancel()} throws is treated as cancelled. The default calls
     * {@link #delayRetry}, so a runner that overrides only that one takes these waits too.
     *
     * @param retry      asks the retry budget again and, allowed, queues the retry; call it once,
     *                   on any thread, never under a lock the engine may need
     * @param delayNanos the next backoff
     * @param scheduler  the limiter's scheduler
     * @return what cancels the wait if the execution ends first, or {@code null} if
     *         {@code retry} has already run
     */
    default Cancellable delayRefusedRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
        return delayRetry(retry, delayNanos, scheduler);
    }

    /**
     * Whether a retry queues for its lease ahead of every acquisition queued as a first
     * attempt (though behind retries queued before it): older work first, for a runner
     * whose pending work all waits in the limiter's queue. The default, {@code false},
     * keeps arrival order, which a runner that feeds one item at a time wants: its one
     * queued acquisition is older than any retry. One that throws (anything) counts as
     * {@code false}.
     *
     * @return whether retries go first
     */
    default boolean retriesFirst() {
        return false;
    }

    /**
     * An attempt that answered or timed out is ending: called after its classification and
     * before its lease is released, so before its slot can go to other work (a runner that
     * stops on a failure holds its dispatch here). Not called for an attempt ended by
     * {@link Execution#cancel(Throwable)}. One that throws is ignored. The default does nothing.
     *
     * @param attempt the attempt's number, from 1
     * @param outcome how it was classified
     * @param failure why it failed, as {@link dev.adaptive.AdmissionGate#settled} is told; {@code null} for a success
     */
    default void ending(int attempt, Outcome outcome, Throwable failure) {
    }

    /**
     * The execution is over: its result is complete, no attempt of it holds a lease, and no
     * slot the limiter was granting an acquisition of it as that acquisition was withdrawn is
     * still counted. Called exactly once. One that throws is ignored. The default does nothing.
     */
    default void finished() {
    }
}
