package dev.adaptive.pool;

import java.util.function.Consumer;

/**
 * Where a run takes its items from. Every method but {@link #open} and {@link #cancel} is called
 * only by the run's feeder, which never runs on two threads at once.
 *
 * @param <T> the item type
 */
interface Source<T> {

    /** Returned by {@link #next()} when an item was asked for and has not arrived yet. */
    Object WAIT = new Object();
    /** Returned by {@link #next()} when the input is over (or failed: see {@link #failure()}). */
    Object END = new Object();

    /**
     * Starts the input, on the thread that starts the run.
     *
     * @param wake to call whenever {@link #ready()} may have become true
     */
    void open(Runnable wake);

    /** @return whether {@link #next()} can answer without waiting for the input */
    boolean ready();

    /** @return the next item, {@link #WAIT} or {@link #END}; never throws */
    Object next();

    /** @return the input's failure once {@link #next()} returned {@link #END} because of one */
    Throwable failure();

    /**
     * After a stop: hands every item the input has already given over to the pool and the pool
     * has not started (all the rest of an array or a collection; an item a publisher delivered),
     * then stops pulling.
     *
     * @param accepted receives each such item
     */
    void drainAccepted(Consumer<Object> accepted);

    /** Stops the input (cancels a publisher's subscription). Any thread; idempotent. */
    void cancel();

    /** Releases the input's resources (closes a stream) once the run has ended. */
    void close();
}
