package dev.adaptive.vertx;

import dev.adaptive.StopPoolException;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemError;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.PoolStoppedException;
import dev.adaptive.pool.Settled;
import dev.adaptive.vertx.impl.AdaptiveLimiterImpl;
import dev.adaptive.vertx.impl.PoolRun;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;

import java.util.Objects;

/**
 * Processes many items through an {@link AdaptiveLimiter}: each item is one call with the
 * limiter's retries, task timeout and Retry-After pauses, and as many run at once as the limit
 * allows.
 *
 * <p>Inputs are pulled, never pushed: a slot is acquired first, then the next item is taken
 * (from an {@link Iterable}'s iterator, or by {@link ReadStream#fetch(long) fetch(1)} on a paused
 * {@link ReadStream}), so memory stays O(concurrency) however long the input. Items that a
 * stream delivers without being asked are buffered and processed, never lost.
 *
 * <p>Results and stats are the core pool's: an {@link AdaptiveResult} (successes and
 * {@link ItemError}s in completion order, and {@link PoolStats}), or, in the streaming form, one
 * {@link Settled} per item and the stats; {@link AdaptivePoolStats} gives the stats as JSON. Every
 * item pulled ends in exactly one place. Early ends are as in the core pool, with the same
 * {@link PoolStoppedException} as {@link PoolStats#stopCause()}:
 * <ul>
 *   <li>an item that fails with a {@link StopPoolException} keeps it as its error and stops the
 *       run ({@code STOPPED}): nothing more is pulled, and the calls still running are cancelled
 *       (their {@link dev.adaptive.TaskContext#cancellation()} fires) and end with the
 *       {@code PoolStoppedException};</li>
 *   <li>if the input fails (the iterator throws, the stream reports an exception:
 *       {@code INPUT_FAILED}), nothing more is pulled and the items already taken finish
 *       normally;</li>
 *   <li>if the limiter refuses the run a slot (it was closed, or its queue is full:
 *       {@code CANCELLED}), nothing more is pulled; calls a closed limiter cancelled end with
 *       its {@link dev.adaptive.LimiterClosedException}.</li>
 * </ul>
 * Items never pulled are not part of the run. The returned future always succeeds once every
 * item taken has ended.
 *
 * <p>The run lives on the context it was started from (or the limiter's, outside any
 * context): the processor is called there and the returned future completes there. A long
 * input of instantly completing items yields the event loop every few hundred items.
 *
 * <p>Thread-safe; each run is independent.
 */
public interface AdaptivePool {

    /**
     * @param vertx   the Vert.x instance
     * @param options options of the pool's own limiter, shared by all its runs
     * @return a pool
     */
    static AdaptivePool create(Vertx vertx, AdaptiveOptions options) {
        return create(AdaptiveLimiter.create(vertx, options));
    }

    /**
     * @param limiter the limiter every item's calls go through; may be shared with other callers
     * @return a pool
     */
    static AdaptivePool create(AdaptiveLimiter limiter) {
        Objects.requireNonNull(limiter, "limiter");
        if (!(limiter instanceof AdaptiveLimiterImpl impl)) {
            throw new IllegalArgumentException("limiter must come from AdaptiveLimiter.create: " + limiter);
        }
        return new AdaptivePool() {
            @Override
            public <T, R> Future<AdaptiveResult<T, R>> process(Iterable<? extends T> items, ItemProcessor<? super T, R> processor) {
                return PoolRun.collect(impl, PoolRun.source(items), processor);
            }

            @Override
            public <T, R> Future<AdaptiveResult<T, R>> process(ReadStream<T> items, ItemProcessor<? super T, R> processor) {
                return PoolRun.collect(impl, PoolRun.source(items), processor);
            }

            @Override
            public <T, R> Future<PoolStats> stream(Iterable<? extends T> items, ItemProcessor<? super T, R> processor,
                                                   Handler<Settled<T, R>> onItem) {
                return PoolRun.stream(impl, PoolRun.source(items), processor, onItem);
            }

            @Override
            public <T, R> Future<PoolStats> stream(ReadStream<T> items, ItemProcessor<? super T, R> processor,
                                                   Handler<Settled<T, R>> onItem) {
                return PoolRun.stream(impl, PoolRun.source(items), processor, onItem);
            }

            @Override
            public AdaptiveLimiter limiter() {
                return impl;
            }
        };
    }

    /**
     * Processes every item of an iterable, pulling its iterator lazily.
     *
     * @param items     the items
     * @param processor the work per item
     * @param <T>       the item type
     * @param <R>       the result type
     * @return successes, errors and stats, once every item pulled has ended
     */
    <T, R> Future<AdaptiveResult<T, R>> process(Iterable<? extends T> items, ItemProcessor<? super T, R> processor);

    /**
     * Processes every item of a stream, with back-pressure: the stream is paused and fetched one
     * item per free slot.
     *
     * @param items     the stream; the run sets its handlers
     * @param processor the work per item
     * @param <T>       the item type
     * @param <R>       the result type
     * @return successes, errors and stats, once the stream has ended and every item has ended
     */
    <T, R> Future<AdaptiveResult<T, R>> process(ReadStream<T> items, ItemProcessor<? super T, R> processor);

    /**
     * As {@link #process(Iterable, ItemProcessor)}, but hands each outcome to {@code onItem} as
     * it settles and retains nothing, for inputs too large to collect.
     *
     * @param items     the items
     * @param processor the work per item
     * @param onItem    called on the run's context with each outcome; an exception it throws is
     *                  counted in {@link PoolStats#callbackFailures()}, reported to the context's
     *                  exception handler, and the run goes on
     * @param <T>       the item type
     * @param <R>       the result type
     * @return the stats, once every item pulled has ended
     */
    <T, R> Future<PoolStats> stream(Iterable<? extends T> items, ItemProcessor<? super T, R> processor,
                                    Handler<Settled<T, R>> onItem);

    /**
     * As {@link #process(ReadStream, ItemProcessor)}, streaming outcomes to {@code onItem}.
     *
     * @param items     the stream
     * @param processor the work per item
     * @param onItem    called on the run's context with each outcome
     * @param <T>       the item type
     * @param <R>       the result type
     * @return the stats, once the stream has ended and every item has ended
     */
    <T, R> Future<PoolStats> stream(ReadStream<T> items, ItemProcessor<? super T, R> processor,
                                    Handler<Settled<T, R>> onItem);

    /** @return the limiter the pool's calls go through */
    AdaptiveLimiter limiter();
}
