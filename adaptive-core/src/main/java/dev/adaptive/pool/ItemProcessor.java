package dev.adaptive.pool;

import dev.adaptive.TaskContext;

import java.util.concurrent.CompletionStage;

/**
 * The asynchronous work done for one item: called once per attempt, it must not block and
 * returns a stage that completes when the call does. Throwing, returning {@code null} or a
 * stage that fails are all failed attempts, classified by the pool's
 * {@link dev.adaptive.OutcomeClassifier}.
 *
 * <p>Called from whichever thread frees the slot the attempt runs in (the caller of
 * {@code process} for the first ones, then the threads that complete earlier attempts), so
 * it must be thread-safe when the pool's stages complete on several threads.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
@FunctionalInterface
public interface ItemProcessor<T, R> {

    /**
     * @param item    the item, as pulled from the input
     * @param context the attempt number, the item's index and a cancellation handle that fires
     *                on task timeout, pool stop, pool cancellation and pool deadline
     * @return the attempt's result
     * @throws Exception a failed attempt
     */
    CompletionStage<R> process(T item, TaskContext context) throws Exception;
}
