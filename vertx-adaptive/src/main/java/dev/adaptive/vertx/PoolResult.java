package dev.adaptive.vertx;

import java.util.List;

/**
 * The outcome of a collected {@link AdaptivePool} run: every item pulled from the input ends in
 * exactly one of {@code results} or {@code errors}.
 *
 * @param results the results, in completion order
 * @param errors  the items that failed, in completion order
 * @param stats   what the run did
 * @param <T>     the item type
 * @param <R>     the result type
 */
public record PoolResult<T, R>(List<R> results, List<ItemError<T>> errors, PoolStats stats) {

    /**
     * Copies the lists (results may hold {@code null} values).
     *
     * @param results the results, in completion order
     * @param errors  the items that failed, in completion order
     * @param stats   what the run did
     */
    public PoolResult {
        results = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(results));
        errors = List.copyOf(errors);
    }
}
