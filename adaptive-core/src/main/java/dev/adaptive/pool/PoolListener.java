package dev.adaptive.pool;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Receives each item of a streaming run as it settles ({@link ItemPool#stream}); nothing is
 * retained by the pool. Calls are never concurrent, and each happens before the next, so an
 * implementation needs no locking of its own; they run on the thread that settled the item (or
 * delivered the one before), so they should be quick. A call that throws is counted in
 * {@link PoolStats#callbackFailures()}; the item still counts as settled and the run goes on.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public interface PoolListener<T, R> {

    /** @param result an item that succeeded */
    void onResult(ItemResult<T, R> result);

    /** @param error an item that failed, or that a stop ended */
    void onError(ItemError<T> error);

    /**
     * @param onResult called for each success
     * @param onError  called for each failure
     * @param <T>      the item type
     * @param <R>      the result type
     * @return a listener made of the two callbacks
     */
    static <T, R> PoolListener<T, R> of(Consumer<? super ItemResult<T, R>> onResult,
                                        Consumer<? super ItemError<T>> onError) {
        Objects.requireNonNull(onResult, "onResult");
        Objects.requireNonNull(onError, "onError");
        return new PoolListener<>() {
            @Override
            public void onResult(ItemResult<T, R> result) {
                onResult.accept(result);
            }

            @Override
            public void onError(ItemError<T> error) {
                onError.accept(error);
            }
        };
    }
}
