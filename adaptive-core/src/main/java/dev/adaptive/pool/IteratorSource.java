package dev.adaptive.pool;

import java.util.Iterator;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Items from an iterator, pulled one at a time when a slot is free. A materialized input (an
 * array or a {@link java.util.Collection}) counts as accepted whole: after a stop its unpulled
 * items end as errors. A lazy one (an {@link Iterator}, a non-collection {@link Iterable}, a
 * {@link java.util.stream.Stream}) is never pulled after a stop, so its unpulled items were
 * never accepted. The iterator is made when the run starts (or when a stop before the start
 * drains a materialized input); an {@code iterator()} that throws is a failure of the input.
 */
final class IteratorSource<T> implements Source<T> {

    private final Supplier<? extends Iterator<? extends T>> items;
    private final boolean materialized;
    private final AutoCloseable resource;
    private Iterator<? extends T> iterator;
    private boolean done;
    private Throwable failure;

    IteratorSource(Supplier<? extends Iterator<? extends T>> items, boolean materialized, AutoCloseable resource) {
        this.items = items;
        this.materialized = materialized;
        this.resource = resource;
    }

    @Override
    public void open(Runnable wake) {
        // Synchronous: always ready. The iterator is made on the first pull, by the feeder.
    }

    @Override
    public boolean ready() {
        return true;
    }

    @Override
    public Object next() {
        if (done) {
            return END;
        }
        try {
            if (iterator == null) {
                iterator = items.get();
            }
            if (!iterator.hasNext()) {
                done = true;
                return END;
            }
            return iterator.next();
        } catch (Throwable t) {
            // A broken input ends intake; the items already accepted still finish.
            failure = t;
            done = true;
            return END;
        }
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public void drainAccepted(Consumer<Object> accepted) {
        if (materialized) {
            Object item;
            while ((item = next()) != END) {
                accepted.accept(item);
            }
        }
        done = true;
    }

    @Override
    public void cancel() {
        // Pulled only by the feeder, which checks the stop flag before every pull.
    }

    @Override
    public void close() {
        if (resource != null) {
            try {
                resource.close();
            } catch (Throwable ignored) {
                // A stream's close handler failing (with anything: an Error thrown here would
                // keep the run from ever completing) says nothing about the items.
            }
        }
    }
}
