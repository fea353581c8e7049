package dev.adaptive.pool;

import dev.adaptive.Adapt;
import dev.adaptive.Cancellation;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.TaskContext;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Processes a collection or a stream of items with a worker pool whose concurrency tunes itself
 * from latency, errors and rate limits, with retries, task timeouts, and Retry-After pauses of
 * the whole pool.
 *
 * <pre>{@code
 * AdaptiveResult<String, Integer> r = ItemPool.of(urls)
 *     .withLimits(5, 1, 50)
 *     .withRetryPolicy(RetryPolicy.builder().retries(3).exponential().jitter().build())
 *     .withTaskTimeout(Duration.ofSeconds(10))
 *     .process((url, ctx) -> http.getAsync(url, ctx))
 *     .join();
 * }</pre>
 *
 * <p><b>Inputs.</b> Arrays, {@link Iterable}s, {@link Iterator}s, {@link Stream}s and
 * {@link Flow.Publisher}s. Items are pulled one at a time and only when a slot is free (a
 * publisher gets {@code request(1)}), so a lazy input of any length runs in memory
 * O(concurrency); the iterator or stream is opened when the run starts, and a stream is closed
 * when it ends.
 *
 * <p><b>Processors.</b> {@link #process}: asynchronous, returns a {@link CompletionStage}.
 * {@link #processBlocking}: a plain blocking function run on an executor (see
 * {@link #withBlockingExecutor}); an attempt that times out or is cancelled is interrupted.
 * {@link #stream} and {@link #publish} (and their blocking twins) hand each item to a listener
 * or a {@link Flow.Subscriber} as it settles and keep nothing.
 *
 * <p><b>Signals</b> (the signal contract): a success is an RTT sample; a rate-limited attempt
 * ({@link dev.adaptive.RateLimitedException}, or what the classifier calls so) pauses dispatch
 * of the whole pool until its Retry-After (capped by the retry policy's
 * {@code maxRetryAfter}) and is retried on its own budget ({@code maxRateLimitRetries});
 * other failures and task timeouts are drops, retried with backoff and jitter on the
 * {@code retries} budget; an item that spends its budget ends in the errors.
 *
 * <p><b>Ending early.</b> A task that throws {@link dev.adaptive.StopPoolException}, a
 * cancellation ({@link PoolRun#cancel()}, {@link #withCancellation}) or the deadline
 * ({@link #withDeadline}) stops the run: no more items are dispatched, every running attempt's
 * {@link Cancellation} fires (running attempts are cancelled, not awaited), and every item that
 * was accepted and has not finished ends as an error with a {@link PoolAbortedException}
 * (attempts 0 if it never started); the item that threw {@code StopPoolException} ends with it.
 * Which items count as accepted: every item of an array or a {@link Collection} (the rest of
 * the input ends as errors), but only the items already pulled from a lazy input
 * ({@link Iterator}, other {@link Iterable}, {@link Stream}) or delivered by a publisher; items
 * never pulled were never accepted and are not reported. Nothing accepted is silently dropped:
 * the number of successes plus errors equals {@link PoolStats#accepted()}.
 *
 * <p><b>Threads.</b> {@code process} starts the run on the calling thread and returns once the
 * first items are dispatched (with synchronous tasks, once the input is exhausted); after that
 * the run moves on the threads that complete its stages and on its scheduler. No thread is
 * blocked by the pool. {@link #withVirtualTime} runs a whole pool in virtual time.
 *
 * <p>Not thread-safe: configure it on one thread. Each pool runs once; the options are copied
 * when it starts, so a later {@code with...} call does not affect a running pool.
 *
 * @param <T> the item type
 */
public final class ItemPool<T> {

    private final Supplier<Source<T>> input;
    private final PoolOptions.Builder options = PoolOptions.builder();
    private Consumer<? super AdaptiveResult<T, ?>> onFinish;
    private boolean started;

    private ItemPool(Supplier<Source<T>> input) {
        this.input = input;
    }

    /**
     * @param items the items; every one is accepted
     * @param <T>   the item type
     * @return a pool over them
     */
    @SafeVarargs
    public static <T> ItemPool<T> of(T... items) {
        Objects.requireNonNull(items, "items");
        // Copied element by element: the caller's array never escapes, and nulls are allowed.
        List<T> list = new ArrayList<>(items.length);
        for (T item : items) {
            list.add(item);
        }
        return new ItemPool<>(() -> new IteratorSource<>(list::iterator, true, null));
    }

    /**
     * @param items the items; if it is a {@link Collection} every one is accepted, otherwise it
     *              is pulled lazily
     * @param <T>   the item type
     * @return a pool over them
     */
    public static <T> ItemPool<T> of(Iterable<? extends T> items) {
        Objects.requireNonNull(items, "items");
        return new ItemPool<>(() -> Source.of(items));
    }

    /**
     * @param items pulled lazily, one item per free slot
     * @param <T>   the item type
     * @return a pool over them
     */
    public static <T> ItemPool<T> of(Iterator<? extends T> items) {
        Objects.requireNonNull(items, "items");
        return new ItemPool<>(() -> new IteratorSource<>(() -> items, false, null));
    }

    /**
     * @param items pulled lazily through its iterator; closed when the run ends
     * @param <T>   the item type
     * @return a pool over them
     */
    public static <T> ItemPool<T> of(Stream<? extends T> items) {
        Objects.requireNonNull(items, "items");
        return new ItemPool<>(() -> new IteratorSource<>(items::iterator, false, items));
    }

    /**
     * @param items subscribed to when the run starts; {@code request(1)} only when a slot is free
     * @param <T>   the item type
     * @return a pool over them
     */
    public static <T> ItemPool<T> of(Flow.Publisher<? extends T> items) {
        Objects.requireNonNull(items, "items");
        return new ItemPool<>(() -> Source.of(items));
    }

    /**
     * Maps items through an asynchronous function in one call: the shortcut for
     * {@code of(items).withOptions(options).process((item, ctx) -> fn.apply(item))}.
     *
     * <pre>{@code
     * CompletableFuture<AdaptiveResult<String, Integer>> f =
     *     ItemPool.map(urls, url -> client.fetchAsync(url), PoolOptions.builder().concurrency(4, 1, 32).build());
     * }</pre>
     *
     * <p>The returned future never completes exceptionally: failed items are in
     * {@link AdaptiveResult#errors()}; use {@link AdaptiveResult#resultsInInputOrder()} for the
     * values in input order. For cancellation, tracing or streaming, build the pool with
     * {@link #of(Iterable)}.
     *
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
        return ItemPool.<T>of(items).withOptions(options)
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
        return ItemPool.<T>of(items).withOptions(options)
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

    // ---- options -----------------------------------------------------------------------

    /**
     * Bounds of the default {@link dev.adaptive.limit.Vegas} algorithm; {@link #withAlgorithm}
     * takes precedence.
     *
     * @param initialLimit the starting limit; default 5; within [minLimit, maxLimit]
     * @param minLimit     the lowest limit; default 1; at least 1
     * @param maxLimit     the highest limit; default 100; at least minLimit
     * @return this
     * @throws IllegalArgumentException naming the bound and its value
     */
    public ItemPool<T> withLimits(int initialLimit, int minLimit, int maxLimit) {
        options.limits(initialLimit, minLimit, maxLimit);
        return this;
    }

    /**
     * @param algorithm the limit algorithm, with its own bounds; wins over {@link #withLimits}
     * @return this
     */
    public ItemPool<T> withAlgorithm(Limit algorithm) {
        options.algorithm(algorithm);
        return this;
    }

    /**
     * @param adapt which signals move the limit; default {@link Adapt#all()}
     * @return this
     */
    public ItemPool<T> adaptOn(Adapt adapt) {
        options.adapt(adapt);
        return this;
    }

    /**
     * @param policy retries, backoff, rate-limit budget, Retry-After cap; default {@link RetryPolicy#defaults()}
     * @return this
     */
    public ItemPool<T> withRetryPolicy(RetryPolicy policy) {
        options.retryPolicy(policy);
        return this;
    }

    /**
     * @param timeout per-attempt timeout, positive; default none
     * @return this
     */
    public ItemPool<T> withTaskTimeout(Duration timeout) {
        options.taskTimeout(timeout);
        return this;
    }

    /**
     * @param deadline the most a run may take, positive, in ticker time; default none
     * @return this
     */
    public ItemPool<T> withDeadline(Duration deadline) {
        options.deadline(deadline);
        return this;
    }

    /**
     * @param stage cancels the run when it completes, normally or not
     * @return this
     */
    public ItemPool<T> withCancellation(CompletionStage<?> stage) {
        options.cancellation(stage);
        return this;
    }

    /**
     * @param signal cancels the run when it fires (a task's cancellation, to nest pools)
     * @return this
     */
    public ItemPool<T> withCancellation(Cancellation signal) {
        options.cancellation(signal);
        return this;
    }

    /**
     * @param listener receives every trace event; may be called several times
     * @return this
     */
    public ItemPool<T> withTraceListener(TraceListener listener) {
        options.traceListener(listener);
        return this;
    }

    /**
     * @param classifier outcome classifier; default {@link OutcomeClassifier#defaults()}
     * @return this
     */
    public ItemPool<T> withClassifier(OutcomeClassifier classifier) {
        options.classifier(classifier);
        return this;
    }

    /**
     * Runs the whole pool in virtual time: backoff, timeouts, pauses and the deadline wait on
     * it, and every timestamp reads it. Nothing moves until the caller advances it.
     *
     * @param time the virtual time
     * @return this
     */
    public ItemPool<T> withVirtualTime(VirtualTime time) {
        options.time(time);
        return this;
    }

    /**
     * A ticker that throws at a run's first reading, as the run is built, leaves no run:
     * {@code process()} and the other forms throw what it threw, and a publisher's subscriber
     * gets {@code onSubscribe}, then {@code onError} with it. Later readings that throw are
     * survived: the run goes on and completes.
     *
     * @param ticker    the time source; default {@link Ticker#system()}
     * @param scheduler the waits; default {@link Scheduler#system()}
     * @return this
     */
    public ItemPool<T> withTime(Ticker ticker, Scheduler scheduler) {
        options.ticker(ticker).scheduler(scheduler);
        return this;
    }

    /**
     * @param executor runs blocking processors, not shut down by the pool; default one owned
     *                 by the run: daemon threads, at most the algorithm's max limit (capped at
     *                 {@value PoolOptions#MAX_DEFAULT_BLOCKING_THREADS}), shut down at the end
     * @return this
     */
    public ItemPool<T> withBlockingExecutor(Executor executor) {
        options.blockingExecutor(executor);
        return this;
    }

    /**
     * @param maxPending bound on accepted, unsettled items; 0 (default) is twice the limit
     * @return this
     */
    public ItemPool<T> withMaxPending(int maxPending) {
        options.maxPending(maxPending);
        return this;
    }

    /**
     * @param budget the cap on retries, shared by every retry of the run; default
     *               {@link dev.adaptive.retry.RetryBudget#defaults()}
     * @return this
     */
    public ItemPool<T> withRetryBudget(dev.adaptive.retry.RetryBudget budget) {
        options.retryBudget(budget);
        return this;
    }

    /**
     * @param maxInterval the longest wait between two probes of an outage; 0 turns the rule off;
     *                    default 1 s (see {@link PoolOptions.Builder#outageProbe})
     * @return this
     */
    public ItemPool<T> withOutageProbe(Duration maxInterval) {
        options.outageProbe(maxInterval);
        return this;
    }

    /**
     * @param name for thread names and messages; default {@code "pool"}
     * @return this
     */
    public ItemPool<T> withName(String name) {
        options.name(name);
        return this;
    }

    /**
     * @param all replaces every option set so far
     * @return this
     */
    public ItemPool<T> withOptions(PoolOptions all) {
        options.from(Objects.requireNonNull(all, "options"));
        return this;
    }

    /**
     * @param callback called once when the run ends, before its outcome completes, with the
     *                 result (empty lists in the streaming forms); one that throws is reported to
     *                 the thread's uncaught-exception handler and the run completes anyway
     * @return this
     */
    public ItemPool<T> onFinish(Consumer<? super AdaptiveResult<T, ?>> callback) {
        this.onFinish = Objects.requireNonNull(callback, "onFinish");
        return this;
    }

    /** @return the options as set so far */
    public PoolOptions options() {
        return options.build();
    }

    // ---- runs --------------------------------------------------------------------------

    /**
     * Runs the pool and collects every item.
     *
     * @param processor the asynchronous work for one item
     * @param <R>       the result type
     * @return the running pool
     * @throws IllegalStateException if this pool already ran
     */
    public <R> PoolRun<AdaptiveResult<T, R>> process(ItemProcessor<? super T, R> processor) {
        Objects.requireNonNull(processor, "processor");
        CompletableFuture<AdaptiveResult<T, R>> outcome = new CompletableFuture<>();
        return run(collecting(outcome), outcome, processor, null);
    }

    /**
     * Runs the pool with a blocking function and collects every item.
     *
     * @param processor the blocking work for one item
     * @param <R>       the result type
     * @return the running pool
     * @throws IllegalStateException if this pool already ran
     */
    public <R> PoolRun<AdaptiveResult<T, R>> processBlocking(BlockingProcessor<? super T, R> processor) {
        Objects.requireNonNull(processor, "processor");
        CompletableFuture<AdaptiveResult<T, R>> outcome = new CompletableFuture<>();
        return run(collecting(outcome), outcome, null, processor);
    }

    /**
     * Runs the pool and hands each item to {@code listener} as it settles, keeping nothing.
     *
     * @param processor the asynchronous work for one item
     * @param listener  receives each settled item, never concurrently
     * @param <R>       the result type
     * @return the running pool; its outcome is the stats
     * @throws IllegalStateException if this pool already ran
     */
    public <R> PoolRun<PoolStats> stream(ItemProcessor<? super T, R> processor, PoolListener<T, R> listener) {
        Objects.requireNonNull(processor, "processor");
        CompletableFuture<PoolStats> outcome = new CompletableFuture<>();
        return run(listening(listener, outcome), outcome, processor, null);
    }

    /**
     * As {@link #stream}, with a blocking function.
     *
     * @param processor the blocking work for one item
     * @param listener  receives each settled item, never concurrently
     * @param <R>       the result type
     * @return the running pool; its outcome is the stats
     * @throws IllegalStateException if this pool already ran
     */
    public <R> PoolRun<PoolStats> streamBlocking(BlockingProcessor<? super T, R> processor, PoolListener<T, R> listener) {
        Objects.requireNonNull(processor, "processor");
        CompletableFuture<PoolStats> outcome = new CompletableFuture<>();
        return run(listening(listener, outcome), outcome, null, processor);
    }

    /**
     * The pool as a publisher of settled items; the run starts when it is subscribed to.
     *
     * @param processor the asynchronous work for one item
     * @param <R>       the result type
     * @return the publisher
     * @throws IllegalStateException if this pool already ran
     */
    public <R> PoolPublisher<T, R> publish(ItemProcessor<? super T, R> processor) {
        Objects.requireNonNull(processor, "processor");
        return publisher(processor, null);
    }

    /**
     * As {@link #publish}, with a blocking function.
     *
     * @param processor the blocking work for one item
     * @param <R>       the result type
     * @return the publisher
     * @throws IllegalStateException if this pool already ran
     */
    public <R> PoolPublisher<T, R> publishBlocking(BlockingProcessor<? super T, R> processor) {
        Objects.requireNonNull(processor, "processor");
        return publisher(null, processor);
    }

    private <R> PoolPublisher<T, R> publisher(ItemProcessor<? super T, R> async, BlockingProcessor<? super T, R> blocking) {
        claim();
        PoolOptions frozen = options.build();
        return new PoolPublisher<>(sink -> StandaloneRun.engine(frozen, input.get(), sink, async, blocking), onFinish);
    }

    private <R> Sink<T, R> collecting(CompletableFuture<AdaptiveResult<T, R>> outcome) {
        Consumer<? super AdaptiveResult<T, ?>> callback = onFinish;
        return Sink.collecting(result -> {
            FinishCallback.run(callback, result);
            outcome.complete(result);
        });
    }

    private <R> Sink<T, R> listening(PoolListener<T, R> listener, CompletableFuture<PoolStats> outcome) {
        Consumer<? super AdaptiveResult<T, ?>> callback = onFinish;
        return Sink.listening(Objects.requireNonNull(listener, "listener"), stats -> {
            FinishCallback.run(callback, FinishCallback.<T, R>statsOnly(stats));
            outcome.complete(stats);
        });
    }

    private <R, V> PoolRun<V> run(Sink<T, R> sink, CompletableFuture<V> outcome,
                                  ItemProcessor<? super T, R> async, BlockingProcessor<? super T, R> blocking) {
        claim();
        PoolEngine<T, R> engine = StandaloneRun.engine(options.build(), input.get(), sink, async, blocking);
        PoolRun<V> run = new PoolRun<>(engine, outcome);
        engine.start();
        return run;
    }

    private void claim() {
        if (started) {
            throw new IllegalStateException("this ItemPool has already run; make a new one with ItemPool.of(...)");
        }
        started = true;
    }
}
