package dev.adaptive.vertx.impl;

import io.vertx.core.streams.ReadStream;

import java.util.concurrent.Flow;

/**
 * A {@link ReadStream} as the {@link Flow.Publisher} the pool's engine pulls: subscribing pauses
 * the stream and sets its handlers, {@code request(n)} is {@link ReadStream#fetch(long)
 * fetch(n)}, {@code cancel()} pauses it again. The stream is user code: one that throws
 * (anything) while being set up or asked for items has failed, as if it had called its
 * exception handler (the engine's publisher source turns a throwing {@code request} into that).
 * Items it pushes without being asked are passed on; the engine accepts them.
 *
 * @param <T> the item type
 */
final class ReadStreamPublisher<T> implements Flow.Publisher<T> {

    private final ReadStream<T> stream;

    ReadStreamPublisher(ReadStream<T> stream) {
        this.stream = stream;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        try {
            stream.pause();
            stream.exceptionHandler(subscriber::onError);
            stream.endHandler(v -> subscriber.onComplete());
            stream.handler(subscriber::onNext);
        } catch (Throwable t) {
            subscriber.onError(t);
            return;
        }
        subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
                stream.fetch(n);
            }

            @Override
            public void cancel() {
                stream.pause();
            }
        });
    }
}
