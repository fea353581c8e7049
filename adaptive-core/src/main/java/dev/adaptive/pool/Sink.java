package dev.adaptive.pool;

/**
 * Where a run hands settled items: a collector, a listener or a publisher's subscriber. Calls
 * come from the run's delivery loop, never two at once, each happening before the next.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
interface Sink<T, R> {

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
