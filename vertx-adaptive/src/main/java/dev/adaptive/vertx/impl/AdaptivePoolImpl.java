package dev.adaptive.vertx.impl;

import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolOptions;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.Settled;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptivePool;
import dev.adaptive.vertx.FutureItemProcessor;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.streams.ReadStream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The {@link AdaptivePool}: a limiter and what stops each of its runs early (a deadline,
 * cancellation triggers). Immutable; {@link #withDeadline} and {@link #withCancellation} make
 * new pools on the same limiter. Internal; thread-safe.
 */
public final class AdaptivePoolImpl implements AdaptivePool {

    private final AdaptiveLimiterImpl limiter;
    private final Duration deadline;
    private final List<CompletionStage<?>> cancellations;

    /** @param limiter every item's calls go through it */
    public AdaptivePoolImpl(AdaptiveLimiterImpl limiter) {
        this(limiter, null, List.of());
    }

    private AdaptivePoolImpl(AdaptiveLimiterImpl limiter, Duration deadline, List<CompletionStage<?>> cancellations) {
        this.limiter = limiter;
        this.deadline = deadline;
        this.cancellations = cancellations;
    }

    @Override
    public <T, R> Future<AdaptiveResult<T, R>> process(Iterable<? extends T> items, FutureItemProcessor<? super T, R> processor) {
        return PoolRunner.collect(this, PoolRunner.source(items), processor);
    }

    @Override
    public <T, R> Future<AdaptiveResult<T, R>> process(ReadStream<T> items, FutureItemProcessor<? super T, R> processor) {
        return PoolRunner.collect(this, PoolRunner.source(items), processor);
    }

    @Override
    public <T, R> Future<PoolStats> stream(Iterable<? extends T> items, FutureItemProcessor<? super T, R> processor,
                                           Handler<Settled<T, R>> onItem) {
        return PoolRunner.stream(this, PoolRunner.source(items), processor, onItem);
    }

    @Override
    public <T, R> Future<PoolStats> stream(ReadStream<T> items, FutureItemProcessor<? super T, R> processor,
                                           Handler<Settled<T, R>> onItem) {
        return PoolRunner.stream(this, PoolRunner.source(items), processor, onItem);
    }

    @Override
    public AdaptivePool withDeadline(Duration deadline) {
        // The core pool's check: the same option, the same message.
        PoolOptions.builder().deadline(deadline);
        return new AdaptivePoolImpl(limiter, deadline, cancellations);
    }

    @Override
    public AdaptivePool withCancellation(Future<?> trigger) {
        Objects.requireNonNull(trigger, "cancellation");
        List<CompletionStage<?>> more = new ArrayList<>(cancellations);
        more.add(trigger.toCompletionStage());
        return new AdaptivePoolImpl(limiter, deadline, List.copyOf(more));
    }

    @Override
    public AdaptiveLimiter limiter() {
        return limiter;
    }

    AdaptiveLimiterImpl limiterImpl() {
        return limiter;
    }

    Duration deadline() {
        return deadline;
    }

    List<CompletionStage<?>> cancellations() {
        return cancellations;
    }
}
