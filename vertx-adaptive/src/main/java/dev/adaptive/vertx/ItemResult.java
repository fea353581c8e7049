package dev.adaptive.vertx;

import java.util.Objects;

/**
 * How one item of a streamed {@link AdaptivePool} run ended; handed to the callback as it
 * settles, and retained by nobody.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public sealed interface ItemResult<T, R> permits ItemResult.Success, ItemResult.Failure {

    /** @return the item */
    T item();

    /** @return its position in the input, from 0 */
    long index();

    /** @return attempts made */
    int attempts();

    /**
     * The item's processing succeeded.
     *
     * @param item     the item
     * @param index    its position
     * @param value    the result
     * @param attempts attempts made
     * @param <T>      the item type
     * @param <R>      the result type
     */
    record Success<T, R>(T item, long index, R value, int attempts) implements ItemResult<T, R> {
    }

    /**
     * The item failed after every retry it was allowed.
     *
     * @param item     the item
     * @param index    its position
     * @param error    the last failure
     * @param attempts attempts made
     * @param <T>      the item type
     * @param <R>      the result type
     */
    record Failure<T, R>(T item, long index, Throwable error, int attempts) implements ItemResult<T, R> {
        /**
         * Validates.
         *
         * @param item     the item
         * @param index    its position
         * @param error    the last failure, not null
         * @param attempts attempts made
         */
        public Failure {
            Objects.requireNonNull(error, "error");
        }
    }
}
