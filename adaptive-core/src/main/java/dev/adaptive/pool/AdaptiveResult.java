package dev.adaptive.pool;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * What a collecting run produced: every accepted item is in exactly one of {@link #successes()}
 * and {@link #errors()}, each list in completion order. Immutable if the items and values are.
 *
 * <p>The streaming forms ({@link ItemPool#stream}, {@link ItemPool#publish}) retain
 * nothing: the result their {@code onFinish} callback receives has empty lists and only the
 * {@link #stats()}.
 *
 * @param successes the items that succeeded, in completion order
 * @param errors    the items that failed, in completion order
 * @param stats     what the run did
 * @param <T>       the item type
 * @param <R>       the result type
 */
public record AdaptiveResult<T, R>(List<ItemResult<T, R>> successes, List<ItemError<T>> errors, PoolStats stats) {

    /**
     * Copies the lists.
     *
     * @param successes the items that succeeded, in completion order
     * @param errors    the items that failed, in completion order
     * @param stats     what the run did
     */
    public AdaptiveResult {
        successes = List.copyOf(successes);
        errors = List.copyOf(errors);
        Objects.requireNonNull(stats, "stats");
    }

    /** @return the values of {@link #successes()}, in completion order; may contain {@code null} */
    public List<R> results() {
        return successes.stream().map(ItemResult::value).toList();
    }

    /** @return the values of {@link #successes()} in input order, for map-like use */
    public List<R> resultsInInputOrder() {
        return successes.stream().sorted(Comparator.comparingLong(ItemResult::index)).map(ItemResult::value).toList();
    }

    /** @return whether every accepted item succeeded and nothing stopped the run */
    public boolean allSucceeded() {
        return errors.isEmpty() && stats.completed();
    }
}
