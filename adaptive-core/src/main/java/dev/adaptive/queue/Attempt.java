package dev.adaptive.queue;

import dev.adaptive.Cancellation;
import dev.adaptive.CancellationSignal;
import dev.adaptive.Lease;
import dev.adaptive.TaskContext;
import dev.adaptive.time.Cancellable;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One attempt of a {@link Job}, and the context its task sees. Settles exactly once: by its
 * stage completing, by its task timeout, or by an abort that abandons it.
 *
 * @param <R> the result type
 */
final class Attempt<R> implements TaskContext {

    final Job<R> job;
    final int number;
    /** The adaptive concurrency limiter's lease, or {@code null} without one. */
    final Lease lease;
    final long startNanos;
    final int activeAtStart;
    /** The window this attempt started in; {@link AdjustmentTiming#SETTLED} waits for it. */
    final ObservationWindow window;
    final AtomicBoolean settled = new AtomicBoolean();
    final CancellationSignal signal = new CancellationSignal();
    /** The task timeout's timer, or {@code null}; read and written under the queue's lock. */
    Cancellable timeoutTimer;

    Attempt(Job<R> job, int number, Lease lease, long startNanos, int activeAtStart, ObservationWindow window) {
        this.job = job;
        this.number = number;
        this.lease = lease;
        this.startNanos = startNanos;
        this.activeAtStart = activeAtStart;
        this.window = window;
    }

    @Override
    public long index() {
        return job.index;
    }

    @Override
    public int attempt() {
        return number;
    }

    @Override
    public Cancellation cancellation() {
        return signal;
    }
}
