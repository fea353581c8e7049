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

    /**
     * Fetches a paused stream one item per request. The stream is user code: one that throws
     * (anything) when set up or asked for an item has failed, as if it had called its exception
     * handler, so the run ends its intake instead of waiting for an item that will not come.
     */
    final class FromStream<T> implements ItemSource<T> {
        private final ReadStream<T> stream;
        private Sink<T> sink;

        FromStream(ReadStream<T> stream) {
            this.stream = stream;
        }

        @Override
        public void start(Sink<T> sink) {
            this.sink = sink;
            try {
                stream.pause();
                stream.exceptionHandler(sink::onError);
                stream.endHandler(v -> sink.onEnd());
                stream.handler(sink::onItem);
            } catch (Throwable t) {
                sink.onError(t);
            }
        }

        @Override
        public void request() {
            try {
                stream.fetch(1);
            } catch (Throwable t) {
                sink.onError(t);
            }
        }

        @Override
        public void cancel() {
            try {
                stream.pause();
            } catch (Throwable ignored) {
                // Nothing more is asked of it either way.
            }
        }
    }
}
