package dev.adaptive.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Keeps every settled item, in completion order, for an {@link AdaptiveResult}. */
final class CollectingSink<T, R> implements Sink<T, R> {

    // Plain lists: the run's delivery loop calls one method at a time, with happens-before.
    private final List<ItemResult<T, R>> successes = new ArrayList<>();
    private final List<ItemError<T>> errors = new ArrayList<>();
    private final Consumer<? super AdaptiveResult<T, R>> done;

    CollectingSink(Consumer<? super AdaptiveResult<T, R>> done) {
        this.done = done;
    }

    @Override
    public boolean canDeliver() {
        return true;
    }

    @Override
    public void onResult(ItemResult<T, R> result) {
        successes.add(result);
    }

    @Override
    public void onError(ItemError<T> error) {
        errors.add(error);
    }

    @Override
    public void complete(PoolStats stats) {
        done.accept(new AdaptiveResult<>(successes, errors, stats));
    }
}
