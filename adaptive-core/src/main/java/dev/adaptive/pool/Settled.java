package dev.adaptive.pool;

import java.util.Objects;

/**
 * An item that settled, as published by {@link PoolPublisher}: either {@link Succeeded} or
 * {@link Failed}. Immutable values.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public sealed interface Settled<T, R> permits Settled.Succeeded, Settled.Failed {

    /** @return the item's position in the input */
    long index();

    /**
     * An item that succeeded.
     *
     * @param result the item, its value and attempts
     * @param <T>    the item type
     * @param <R>    the result type
     */
    record Succeeded<T, R>(ItemResult<T, R> result) implements Settled<T, R> {
        /**
         * Checks for null.
         *
         * @param result the item, its value and attempts
         */
        public Succeeded {
            Objects.requireNonNull(result, "result");
        }

        @Override
        public long index() {
            return result.index();
        }
    }

    /**
     * An item that failed.
     *
     * @param error the item, its failure and attempts
     * @param <T>   the item type
     * @param <R>   the result type
     */
    record Failed<T, R>(ItemError<T> error) implements Settled<T, R> {
        /**
         * Checks for null.
         *
         * @param error the item, its failure and attempts
         */
        public Failed {
            Objects.requireNonNull(error, "error");
        }

        @Override
        public long index() {
            return error.index();
        }
    }
}
