package dev.adaptive.vertx;

import dev.adaptive.StopPoolException;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemError;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.PoolAbortedException;
import dev.adaptive.pool.Settled;
import dev.adaptive.vertx.impl.AdaptiveLimiterImpl;
import dev.adaptive.vertx.impl.AdaptivePoolImpl;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;

import java.time.Duration;
import java.util.Objects;

/**
 * Processes many items through an {@link AdaptiveLimiter}: each item is one call with the
 * limiter's retries, task timeout and Retry-After pauses, and as many run at once as the limit
 * allows.
 *
 * <p>The runs are the core pool's ({@link dev.adaptive.pool.ItemPool}): the same engine,
 * on this limiter, with the same semantics. Inputs are pulled, never pushed: a slot is acquired
 * first, then the next item is taken (from an {@link Iterable}'s iterator, or by
 * {@link ReadStream#fetch(long) fetch(1)} on a paused {@link ReadStream}), so memory stays
 * O(concurrency) however long the input; items accepted and not yet handed over (running,
 * waiting for a retry) are at most twice the limit. Items that a stream delivers without being
 * asked are buffered and processed, never lost.
 *
 * <p>Results and stats are the core pool's: an {@link AdaptiveResult} (successes and
 * {@link ItemError}s in completion order, and {@link PoolStats}), or, in the streaming form, one
 * {@link Settled} per item and the stats; {@link AdaptivePoolStats} gives the stats as JSON. Every
 * accepted item ends in exactly one place. Early ends are as in the core pool, with the same
 * {@link PoolAbortedException} as {@link PoolStats#stopCause()}:
 * <ul>
 *   <li>an item that fails with a {@link StopPoolException} keeps it as its error and stops the
 *       run ({@code STOPPED}); a cancellation ({@link #withCancellation}) or the deadline
 *       ({@link #withDeadline}) stops it too ({@code CANCELLED}, {@code DEADLINE}): nothing more
 *       is pulled, the calls still running are cancelled (their
 *       {@link dev.adaptive.TaskContext#cancellation()} fires) and end with the
 *       {@code PoolAbortedException}, and so do items accepted and not started (attempts
 *       0);</li>
 *   <li>if the input fails (the iterator throws, the stream reports an exception:
 *       {@code INPUT_FAILED}), nothing more is pulled and the items already taken finish
 *       normally;</li>
 *   <li>if the limiter refuses the run a slot (it was closed, its queue is full, the wait timed
 *       out: {@code CANCELLED}, the refusal as the cause), the run stops as above; when it was
 *       closed, the items end with its {@link dev.adaptive.LimiterClosedException}.</li>
 * </ul>
 * Which items count as accepted: every item of a {@link java.util.Collection} (after a stop
 * its unpulled items end as errors), but only the items already taken from any other
 * {@link Iterable} or from a stream. The returned future always succeeds once every accepted
 * item has ended.
 *
 * <p>The run lives on the context it was started from (or the limiter's, outside any
 * context): the processor is called there, items are handed over there, and the returned
 * future completes there. A long input of instantly completing items yields the event loop
 * every few hundred items. A run that context refuses to begin (its Vert.x was closed) takes no
 * item, and the call does not throw: its future is already failed with the refusal, and bound
 * to no context, since the closed one could not call its handlers.
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
        return new AdaptivePoolImpl(impl);
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
    <T, R> Future<AdaptiveResult<T, R>> process(Iterable<? extends T> items, FutureItemProcessor<? super T, R> processor);

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
    <T, R> Future<AdaptiveResult<T, R>> process(ReadStream<T> items, FutureItemProcessor<? super T, R> processor);

    /**
     * As {@link #process(Iterable, FutureItemProcessor)}, but hands each outcome to {@code onItem} as
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
    <T, R> Future<PoolStats> stream(Iterable<? extends T> items, FutureItemProcessor<? super T, R> processor,
                                    Handler<Settled<T, R>> onItem);

    /**
     * As {@link #process(ReadStream, FutureItemProcessor)}, streaming outcomes to {@code onItem}.
     *
     * @param items     the stream
     * @param processor the work per item
     * @param onItem    called on the run's context with each outcome
     * @param <T>       the item type
     * @param <R>       the result type
     * @return the stats, once the stream has ended and every item has ended
     */
    <T, R> Future<PoolStats> stream(ReadStream<T> items, FutureItemProcessor<? super T, R> processor,
                                    Handler<Settled<T, R>> onItem);

    /**
     * A pool on the same limiter whose runs also stop when {@code deadline} has passed since
     * each one started ({@code DEADLINE}): nothing more is pulled, running calls are cancelled,
     * and every item taken and not finished ends with the {@link PoolAbortedException}.
     *
     * @param deadline the most each run may take, positive
     * @return the new pool; this one is unchanged
     * @throws IllegalArgumentException if {@code deadline} is not positive
     */
    AdaptivePool withDeadline(Duration deadline);

    /**
     * A pool on the same limiter whose runs are also cancelled ({@code CANCELLED}) when
     * {@code trigger} completes, succeeded or failed (its failure, or its value if that is a
     * {@link Throwable}, becomes the cause); a trigger already complete cancels each run as it
     * starts. May be given several times. A task's cancellation nests a pool in it:
     * {@code withCancellation(Future.fromCompletionStage(ctx.cancellation().asFuture()))}.
     *
     * @param trigger cancels the runs when it completes
     * @return the new pool; this one is unchanged
     */
    AdaptivePool withCancellation(Future<?> trigger);

    /** @return the limiter the pool's calls go through */
    AdaptiveLimiter limiter();
}
