package dev.adaptive.spi;

import java.util.concurrent.CompletableFuture;

/**
 * One task on its way through an {@link dev.adaptive.AdaptiveExecutor}: its attempts, retries and result.
 * Thread-safe. The result completes exactly once: with the task's value, with its last
 * failure, or with the reason given to {@link #cancel(Throwable)}.
 *
 * <p>Whoever completes or cancels the {@linkplain #result() result} first (the caller who no
 * longer wants it, say) withdraws the execution: a queued acquisition leaves the limiter's
 * queue and a pending retry is dropped at once. An attempt already running runs on: its lease
 * is released with its own outcome when it ends, and nothing is retried.
 *
 * <p>Part of the runner SPI: what {@link dev.adaptive.AdaptiveExecutor#start} gives the
 * runners that follow their tasks (the pool, the queue, the Camel and Vert.x faces); a plain
 * caller uses {@link dev.adaptive.AdaptiveExecutor#execute} and holds only the result.
 *
 * @param <R> the result type
 */
public interface Execution<R> {

    /** @return the final result; completing or cancelling it withdraws the execution */
    CompletableFuture<R> result();

    /** @return the item's index */
    long index();

    /** @return attempts started so far */
    int attempts();

    /**
     * Ends the execution with {@code reason}: a queued acquisition is withdrawn, a pending retry
     * dropped, and a running attempt's {@link dev.adaptive.Cancellation} fires and its lease is released as
     * {@link dev.adaptive.limit.Outcome#IGNORED} (a cancellation says nothing about capacity).
     *
     * @param reason the failure the result completes with
     * @return {@code true} if this call ended it
     * @throws NullPointerException if {@code reason} is {@code null}, before anything is stopped
     */
    boolean cancel(Throwable reason);
}
