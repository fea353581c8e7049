package dev.adaptive.vertx;

/**
 * An item that ended in failure, after every retry it was allowed.
 *
 * @param item     the item
 * @param index    its position in the input, from 0
 * @param error    the last failure
 * @param attempts attempts made
 * @param <T>      the item type
 */
public record ItemError<T>(T item, long index, Throwable error, int attempts) {
}
