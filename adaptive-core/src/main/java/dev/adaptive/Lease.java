package dev.adaptive;

import dev.adaptive.limit.Outcome;

/**
 * One admitted call. Release it exactly once with the attempt's {@link Outcome}: the first
 * {@link #release(Outcome)} frees the slot and feeds the sample to the limit; later calls are
 * no-ops and return {@code false}. Thread-safe: it may be released from any thread. When two
 * threads release at once, the loser's {@code false} may come back before the winner's call has
 * freed the slot (the slot is free when the winning call returns): a {@code false} means "someone
 * else releases it", not "the slot is already free".
 *
 * <p>A lease that is never released holds its slot forever; runners (pool, Camel, Vert.x)
 * release it when the attempt ends or its task timeout fires.
 */
public interface Lease {

    /**
     * @param outcome how the attempt ended
     * @return {@code true} if this call released the lease, {@code false} if it was already released
     */
    boolean release(Outcome outcome);

    /**
     * Shorthand for {@code release(Outcome.SUCCESS)}.
     * @return as {@link #release(Outcome)}
     */
    default boolean release() {
        return release(Outcome.SUCCESS);
    }

    /** @return whether the lease has been released */
    boolean isReleased();

    /** @return the ticker reading when the lease was granted */
    long startNanos();

    /** @return attempts in flight when it was granted, counting itself */
    int inflightAtStart();
}
