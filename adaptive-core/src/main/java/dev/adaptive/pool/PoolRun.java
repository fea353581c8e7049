package dev.adaptive.pool;

import dev.adaptive.Limiter;
import dev.adaptive.time.VirtualTime;

import java.util.concurrent.CompletableFuture;

/**
 * A running pool: wait for its outcome, watch it, or cancel it. Returned by
 * {@link ItemPool#process} (outcome {@link AdaptiveResult}) and {@link ItemPool#stream}
 * (outcome {@link PoolStats}). The outcome never completes exceptionally: failed items are in
 * the result, and a stopped run says why in {@link PoolStats#stopCause()}.
 *
 * <p>Thread-safe.
 *
 * @param <V> the outcome type
 */
public final class PoolRun<V> {

    private final PoolEngine<?, ?> engine;
    private final CompletableFuture<V> outcome;

    PoolRun(PoolEngine<?, ?> engine, CompletableFuture<V> outcome) {
        this.engine = engine;
        this.outcome = outcome;
    }

    /**
     * Waits for the run to end. Blocks the calling thread: call it from a thread that may block.
     *
     * @return the outcome
     * @throws IllegalStateException if the run is in virtual time and has not ended: nothing but
     *                               the caller could move that time, so waiting would hang
     */
    public V join() {
        if (!outcome.isDone() && engine.scheduler() instanceof VirtualTime) {
            throw new IllegalStateException("the run has not finished and runs in virtual time: "
                    + "advance the VirtualTime (for example runUntilIdle()) before join()");
        }
        return outcome.join();
    }

    /** @return a future of the outcome; completing or cancelling it does not affect the run */
    public CompletableFuture<V> toCompletableFuture() {
        return outcome.copy();
    }

    /** @return whether the run has ended */
    public boolean isDone() {
        return outcome.isDone();
    }

    /**
     * Cancels the run: dispatch stops, running attempts' cancellations fire, and every
     * unfinished item ends as an error with {@link PoolAbortedException.Reason#CANCELLED}.
     *
     * @return {@code true} if this call stopped the run; {@code false} if it had ended or was
     *         already stopping
     */
    public boolean cancel() {
        return engine.cancel(null);
    }

    /**
     * As {@link #cancel()}, with a cause for {@link PoolAbortedException#getCause()}.
     *
     * @param cause why; may be {@code null}
     * @return as {@link #cancel()}
     */
    public boolean cancel(Throwable cause) {
        return engine.cancel(cause);
    }

    /** @return the run's limiter, for live figures (limit, in flight, pause); do not stop it */
    public Limiter limiter() {
        return engine.limiter();
    }

    /**
     * The stats so far, read at the run's ticker's "now". Never throws: if the ticker throws
     * there, the failure is counted in the returned {@link PoolStats#limitFailures()}, and the
     * stats are as of the run's last reading instead, its start or its limit's last change
     * ({@code elapsed} ends there and {@code performanceData} has no open stretch), as
     * {@link Limiter#stats()} answers without a reading.
     *
     * @return the stats so far; once the run ended, its final ones
     */
    public PoolStats snapshot() {
        return engine.snapshot();
    }
}
