package dev.adaptive.vertx.impl;

import io.vertx.core.streams.ReadStream;

import java.util.Iterator;

/**
 * Where a pool run pulls its items from, one at a time and only when asked, so that nothing is
 * taken from the input before a slot is free for it. Used on the run's context only.
 *
 * @param <T> the item type
 */
interface ItemSource<T> {

    /** @param sink receives items, the end and failures; may be called on any thread */
    void start(Sink<T> sink);

    /** Asks for exactly one more item (or the end, or a failure). */
    void request();

    /** Asks for nothing more. */
    void cancel();

    /** @param <T> the item type */
    interface Sink<T> {
        /** @param item the next item, delivered once per request (or unasked, by an unruly stream) */
        void onItem(T item);

        /** The input has no more items. */
        void onEnd();

        /** @param error the input failed; nothing more will come */
        void onError(Throwable error);
    }

    /** Pulls an iterator: every request is answered synchronously. */
    final class FromIterable<T> implements ItemSource<T> {
        private final Iterable<? extends T> iterable;
        private Iterator<? extends T> iterator;
        private Sink<T> sink;

        FromIterable(Iterable<? extends T> iterable) {
            this.iterable = iterable;
        }

        @Override
        public void start(Sink<T> sink) {
            this.sink = sink;
        }

        @Override
        public void request() {
            T next;
            try {
                if (iterator == null) {
                    iterator = iterable.iterator();
                }
                if (!iterator.hasNext()) {
                    sink.onEnd();
                    return;
                }
                next = iterator.next();
            } catch (Throwable t) {
                sink.onError(t);
                return;
            }
            sink.onItem(next);
        }

        @Override
        public void cancel() {
            // Nothing to release: the iterator is simply no longer pulled.
        }
    }

    /** Fetches a paused stream one item per request. */
    final class FromStream<T> implements ItemSource<T> {
        private final ReadStream<T> stream;

        FromStream(ReadStream<T> stream) {
            this.stream = stream;
        }

        @Override
        public void start(Sink<T> sink) {
            stream.pause();
            stream.exceptionHandler(sink::onError);
            stream.endHandler(v -> sink.onEnd());
            stream.handler(sink::onItem);
        }

        @Override
        public void request() {
            stream.fetch(1);
        }

        @Override
        public void cancel() {
            stream.pause();
        }
    }
}
