package dev.adaptive.pool;

/**
 * An item that succeeded. Immutable if its item and value are.
 *
 * @param index    the item's position in the input, from 0
 * @param item     the item
 * @param value    what the processor returned for it
 * @param attempts attempts made, 1 when the first one succeeded
 * @param <T>      the item type
 * @param <R>      the result type
 */
public record ItemResult<T, R>(long index, T item, R value, int attempts) {
}
