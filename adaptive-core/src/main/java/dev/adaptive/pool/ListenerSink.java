package dev.adaptive.pool;

import java.util.function.Consumer;

/** Hands each settled item to a {@link PoolListener} and keeps nothing. */
final class ListenerSink<T, R> implements Sink<T, R> {

    private final PoolListener<T, R> listener;
    private final Consumer<? super PoolStats> done;

    ListenerSink(PoolListener<T, R> listener, Consumer<? super PoolStats> done) {
        this.listener = listener;
        this.done = done;
    }

    @Override
    public boolean canDeliver() {
        return true;
    }

    @Override
    public void onResult(ItemResult<T, R> result) {
        listener.onResult(result);
    }

    @Override
    public void onError(ItemError<T> error) {
        listener.onError(error);
    }

    @Override
    public void complete(PoolStats stats) {
        done.accept(stats);
    }
}
