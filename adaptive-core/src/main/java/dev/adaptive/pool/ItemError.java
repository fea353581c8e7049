package dev.adaptive.pool;

/**
 * An item that ended in failure. Immutable if its item is.
 *
 * <p>{@code error} is the last attempt's failure once the retry budget is spent (for example a
 * {@link dev.adaptive.TaskTimeoutException} or a {@link dev.adaptive.RateLimitedException}), the
 * {@link dev.adaptive.StopPoolException} the item threw, or a {@link PoolAbortedException} for
 * an item ended by a stop, a cancellation or the deadline. {@code attempts} is 0 for an item
 * that was accepted but never started.
 *
 * @param index    the item's position in the input, from 0
 * @param item     the item
 * @param error    why it failed; never {@code null}
 * @param attempts attempts made, 0 if none started
 * @param <T>      the item type
 */
public record ItemError<T>(long index, T item, Throwable error, int attempts) {
}
