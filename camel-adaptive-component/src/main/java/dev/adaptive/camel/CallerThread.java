package dev.adaptive.camel;

import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import org.apache.camel.AsyncCallback;
import org.apache.camel.spi.ReactiveExecutor;

import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * The thread that sent a transacted exchange, lent to the pool for that exchange's attempts:
 * the thread waits in {@link #runUntilEnded()} and runs, one by one, the attempts the pool
 * hands it ({@link #execute}) until the exchange ends ({@link #done}).
 *
 * <p>Why: a transaction is bound to its thread, so an attempt on a worker runs outside it (its
 * database work is not rolled back with the caller's). Camel's own Delay and Throttle EIPs
 * likewise wait on the caller's thread for a transacted exchange instead of scheduling it. The
 * exchange still waits for its slot, backoff or Retry-After pause in the pool's queue and
 * timers, as every other one does: only the attempts come here, so no attempt ever runs on a
 * worker, and what the thread does meanwhile is wait.
 *
 * <p>An interrupt while it waits fails the exchange ({@link Submission#fail}) and is kept for the
 * caller: the thread goes on running what the exchange's end needs, then returns with its
 * interrupt flag set.
 *
 * <p>While it waits it also runs the routing work Camel queued on this thread (its
 * {@link ReactiveExecutor}), as Camel's own wait for a transacted exchange does: Camel ends a
 * transacted exchange's route through that queue, and a thread already inside Camel's routing
 * loop (any step of a route before the pool's endpoint) only runs it once it returns. The end
 * of an attempt's route would wait there for ever, and the exchange with it.
 *
 * <p>A retry queues for its slot from this thread too ({@link #retries}), once its backoff is
 * over and the thread is free: while the route of an attempt that timed out still runs here, a
 * retry granted a slot could not run, yet it would hold the slot and its task timeout would run
 * out before its route began.
 *
 * <p>Thread-safe: any thread may hand it work or end it; only the caller's thread runs it.
 */
final class CallerThread implements Executor, AsyncCallback {

    /** Wakes the waiting thread to look at {@link #ended}. */
    private static final Runnable WAKE = () -> { };

    private final LinkedBlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
    /** Camel's routing work queued on the caller's thread, or {@code null} for none. */
    private final ReactiveExecutor routing;
    private volatile boolean ended;
    /** Set once the thread has stopped waiting: no attempt is taken after it; guarded by {@code work}. */
    private boolean closed;
    private volatile Submission submission;

    /** @param routing the Camel context's reactive executor, or {@code null} */
    CallerThread(ReactiveExecutor routing) {
        this.routing = routing;
    }

    /**
     * The exchange's execution hooks: each retry, once its backoff is over, queues for its slot
     * from this thread, when the thread is back from the route of the attempt before (one that
     * timed out may still run there). Granted sooner, the retry would hold a slot it cannot use
     * and its task timeout would run while it waits for the thread, failing it unrun.
     */
    private final ExecutionHooks retries = new ExecutionHooks() {
        @Override
        public Cancellable delayRetry(Runnable retry, long delayNanos, Scheduler scheduler) {
            FutureTask<Void> queueing = new FutureTask<>(retry, null);
            Runnable handOver = () -> {
                try {
                    execute(queueing);
                } catch (RejectedExecutionException ended) {
                    // The exchange has ended, and its execution with it: nothing is left to retry.
                }
            };
            if (delayNanos <= 0) {
                handOver.run();
                return () -> queueing.cancel(false);
            }
            Cancellable backoff = scheduler.schedule(handOver, delayNanos);
            return () -> backoff.cancel() | queueing.cancel(false);
        }
    };

    /** @return the hooks that make the exchange's retries queue for their slots from this thread */
    ExecutionHooks retries() {
        return retries;
    }

    /** @param s the exchange whose attempts this thread runs, to fail if the thread is interrupted */
    void attach(Submission s) {
        submission = s;
    }

    /** An attempt of the exchange, or a retry's queueing for its slot, to run on the caller's thread. */
    @Override
    public void execute(Runnable attempt) {
        synchronized (work) {
            if (closed) {
                throw new RejectedExecutionException("the transacted exchange has ended");
            }
            work.add(attempt);
        }
    }

    /** The exchange's end: the waiting thread returns. */
    @Override
    public void done(boolean doneSync) {
        ended = true;
        work.add(WAKE);
    }

    /** Runs the exchange's attempts on this thread until it ends. */
    void runUntilEnded() {
        boolean interrupted = false;
        while (!ended) {
            // Only this thread queues work on its own reactive queue, so what it holds now is all
            // there is until the next attempt runs: run it before blocking, as Camel's await does.
            if (routing != null && routing.executeFromQueue()) {
                continue;
            }
            Runnable next;
            try {
                next = work.take();
            } catch (InterruptedException e) {
                interrupted = true;
                Submission s = submission;
                if (s != null) {
                    s.fail(new InterruptedException("interrupted while the transacted exchange waited in its adaptive pool"));
                }
                continue;
            }
            // The attempts (and retries' queueing) are FutureTasks, which keep what they throw.
            next.run();
        }
        // An attempt can be granted as the exchange ends (a consumer route attaching while an
        // interrupt or a stop ends it): nothing cancels it, and left here it would hold its slot
        // for good. It runs, as a worker would have run it, and its result is ignored. Attempts
        // that were cancelled do nothing; none can be added once closed (execute refuses).
        synchronized (work) {
            closed = true;
        }
        for (Runnable left; (left = work.poll()) != null; ) {
            left.run();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
