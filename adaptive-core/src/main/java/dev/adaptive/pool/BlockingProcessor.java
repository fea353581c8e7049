package dev.adaptive.pool;

import dev.adaptive.TaskContext;

/**
 * The blocking work done for one item, run on the pool's blocking executor (see
 * {@link ItemPool#withBlockingExecutor(java.util.concurrent.Executor)}). Called once per
 * attempt; throwing is a failed attempt.
 *
 * <p>When the attempt's {@link dev.adaptive.Cancellation} fires (task timeout, pool stop,
 * cancellation or deadline), the thread running it is interrupted, so blocking calls that
 * honour interruption ({@code InterruptedException}, interruptible channels) return early. A
 * call that ignores interruption keeps its thread until it returns; its result is ignored.
 * Must be thread-safe: attempts run on several threads at once.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
@FunctionalInterface
public interface BlockingProcessor<T, R> {

    /**
     * @param item    the item
     * @param context the attempt number, the item's index and a cancellation handle
     * @return the attempt's result
     * @throws Exception a failed attempt
     */
    R process(T item, TaskContext context) throws Exception;
}
