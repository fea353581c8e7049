package dev.adaptive.vertx;

import dev.adaptive.TaskContext;
import io.vertx.core.Future;

/**
 * The work an {@link AdaptivePool} does for one item: called once per attempt, on the context
 * the run was started from; it must not block.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
@FunctionalInterface
public interface FutureItemProcessor<T, R> {

    /**
     * @param item    the item
     * @param context its index, the attempt number and a cancellation that fires on task timeout
     *                and when the run stops
     * @return the attempt's result; a failed future (or a thrown exception) is a failed attempt
     */
    Future<R> process(T item, TaskContext context);
}
