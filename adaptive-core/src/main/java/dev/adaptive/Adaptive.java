package dev.adaptive;

import dev.adaptive.pool.AdaptivePool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolOptions;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Functional shortcuts over {@link AdaptivePool}: map items through a function with
 * self-tuning concurrency, retries and Retry-After pauses, in one call.
 *
 * <pre>{@code
 * CompletableFuture<AdaptiveResult<String, Integer>> f =
 *     Adaptive.map(urls, url -> client.fetchAsync(url), PoolOptions.builder().concurrency(4, 1, 32).build());
 * }</pre>
 *
 * <p>The returned future never completes exceptionally: failed items are in
 * {@link AdaptiveResult#errors()}; use {@link AdaptiveResult#resultsInInputOrder()} for the
 * values in input order. For cancellation, tracing or streaming, use {@link AdaptivePool}
 * directly. Stateless and thread-safe.
 */
public final class Adaptive {

    private Adaptive() {
    }

    /**
     * @param items   the items; a collection is accepted whole, other iterables are pulled lazily
     * @param fn      the asynchronous work for one item
     * @param options the pool's options
     * @param <T>     the item type
     * @param <R>     the result type
     * @return the run's result, when it ends
     */
    public static <T, R> CompletableFuture<AdaptiveResult<T, R>> map(
            Iterable<? extends T> items, Function<? super T, ? extends CompletionStage<R>> fn, PoolOptions options) {
        Objects.requireNonNull(fn, "fn");
        return AdaptivePool.<T>of(items).withOptions(options)
                .process((T item, TaskContext ctx) -> fn.apply(item)).toCompletableFuture();
    }

    /**
     * {@link #map(Iterable, Function, PoolOptions)} with {@link PoolOptions#defaults()}.
     *
     * @param items the items
     * @param fn    the asynchronous work for one item
     * @param <T>   the item type
     * @param <R>   the result type
     * @return the run's result, when it ends
     */
    public static <T, R> CompletableFuture<AdaptiveResult<T, R>> map(
            Iterable<? extends T> items, Function<? super T, ? extends CompletionStage<R>> fn) {
        return map(items, fn, PoolOptions.defaults());
    }

    /**
     * Maps with a blocking function, run on the pool's blocking executor (see
     * {@link PoolOptions.Builder#blockingExecutor}).
     *
     * @param items   the items
     * @param fn      the blocking work for one item
     * @param options the pool's options
     * @param <T>     the item type
     * @param <R>     the result type
     * @return the run's result, when it ends
     */
    public static <T, R> CompletableFuture<AdaptiveResult<T, R>> mapBlocking(
            Iterable<? extends T> items, Function<? super T, ? extends R> fn, PoolOptions options) {
        Objects.requireNonNull(fn, "fn");
        return AdaptivePool.<T>of(items).withOptions(options)
                .<R>processBlocking((T item, TaskContext ctx) -> fn.apply(item)).toCompletableFuture();
    }

    /**
     * {@link #mapBlocking(Iterable, Function, PoolOptions)} with {@link PoolOptions#defaults()}.
     *
     * @param items the items
     * @param fn    the blocking work for one item
     * @param <T>   the item type
     * @param <R>   the result type
     * @return the run's result, when it ends
     */
    public static <T, R> CompletableFuture<AdaptiveResult<T, R>> mapBlocking(
            Iterable<? extends T> items, Function<? super T, ? extends R> fn) {
        return mapBlocking(items, fn, PoolOptions.defaults());
    }
}
