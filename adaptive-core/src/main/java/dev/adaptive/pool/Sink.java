package dev.adaptive.pool;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where a {@link PoolEngine} hands settled items: a collector, a listener or a publisher's
 * subscriber. Calls come from the run's delivery loop, never two at once, each happening before
 * the next. For the faces of this library, which use {@link #collecting} and
 * {@link #listening}; not for users.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public interface Sink<T, R> {

    /**
     * @param done receives the result (every item, in completion order, and the stats) once
     * @param <T>  the item type
     * @param <R>  the result type
     * @return a sink that keeps every settled item
     */
    static <T, R> Sink<T, R> collecting(Consumer<? super AdaptiveResult<T, R>> done) {
        return new CollectingSink<>(Objects.requireNonNull(done, "done"));
    }

    /**
     * @param listener receives each settled item as it settles; nothing is kept
     * @param done     receives the stats once
     * @param <T>      the item type
     * @param <R>      the result type
     * @return a sink that hands each item over
     */
    static <T, R> Sink<T, R> listening(PoolListener<T, R> listener, Consumer<? super PoolStats> done) {
        return new ListenerSink<>(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(done, "done"));
    }

    /** @return whether an item may be handed over now (a subscriber's demand) */
    boolean canDeliver();

    /** @param result a succeeded item; may throw, which the run counts and ignores */
    void onResult(ItemResult<T, R> result);

    /** @param error a failed item; may throw, which the run counts and ignores */
    void onError(ItemError<T> error);

    /**
     * Called once, after every settled item was handed over.
     *
     * @param stats the run's final stats
     */
    void complete(PoolStats stats);
}
