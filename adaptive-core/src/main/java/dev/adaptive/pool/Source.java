package dev.adaptive.pool;

import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * Where a {@link PoolEngine} takes its items from. Every method but {@link #open} and
 * {@link #cancel} is called only by the run's feeder, which never runs on two threads at once.
 * For the faces of this library, which adapt their inputs with {@link #of(Iterable)} and
 * {@link #of(Flow.Publisher)}; not for users.
 *
 * @param <T> the item type
 */
public interface Source<T> {

    /**
     * @param items pulled one at a time when a slot is free; a {@link Collection} is accepted
     *              whole (after a stop its unpulled items end as errors), any other iterable is
     *              lazy (after a stop nothing more is pulled); its iterator is made when the run
     *              starts, and one that throws then, or while pulled, is an input failure
     * @param <T>   the item type
     * @return the source
     */
    static <T> Source<T> of(Iterable<? extends T> items) {
        Objects.requireNonNull(items, "items");
        return new IteratorSource<>(items::iterator, items instanceof Collection, null);
    }

    /**
     * @param items subscribed to when the run starts; {@code request(1)} only while the run holds
     *              a free slot and nothing requested is outstanding; items it sends unasked are
     *              still accepted and processed
     * @param <T>   the item type
     * @return the source
     */
    static <T> Source<T> of(Flow.Publisher<? extends T> items) {
        return new PublisherSource<>(Objects.requireNonNull(items, "items"));
    }

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
