package dev.adaptive.vertx.impl;

import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolEngine;
import dev.adaptive.pool.PoolListener;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.Settled;
import dev.adaptive.pool.Sink;
import dev.adaptive.pool.Source;
import dev.adaptive.vertx.FutureItemProcessor;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The Vert.x pool's runs: the core {@link PoolEngine} on the shared limiter of an
 * {@link AdaptiveLimiterImpl}. Every pass of a run (feeding, delivery, a stop's sweep) runs on
 * the caller's context, each attempt is called there through {@link AdaptiveLimiterImpl#start}
 * (which also lets the limiter's close end the run's calls), and the result completes there.
 * Nothing blocks: a long input of instantly completing items hands the event loop back every
 * {@value #YIELD_EVERY} items.
 */
final class PoolRunner {

    static final int YIELD_EVERY = 256;

    private PoolRunner() {
    }

    /** @return the engine's source over an iterable, a collection accepted whole */
    static <T> Source<T> source(Iterable<? extends T> items) {
        return Source.of(Objects.requireNonNull(items, "items"));
    }

    /** @return the engine's source over a stream, fetched one item per free slot */
    static <T> Source<T> source(ReadStream<T> items) {
        return Source.of(new ReadStreamPublisher<>(Objects.requireNonNull(items, "items")));
    }

    /** Runs and collects every item. */
    static <T, R> Future<AdaptiveResult<T, R>> collect(AdaptivePoolImpl pool, Source<T> source,
                                                       FutureItemProcessor<? super T, R> processor) {
        CompletableFuture<AdaptiveResult<T, R>> done = new CompletableFuture<>();
        return run(pool, source, Sink.collecting(done::complete), processor, done);
    }

    /**
     * Runs and hands each outcome to {@code onItem}; one that throws is counted by the engine
     * and reported to the context's exception handler.
     */
    static <T, R> Future<PoolStats> stream(AdaptivePoolImpl pool, Source<T> source,
                                           FutureItemProcessor<? super T, R> processor, Handler<Settled<T, R>> onItem) {
        Objects.requireNonNull(onItem, "onItem");
        Handler<Settled<T, R>> reporting = settled -> {
            try {
                onItem.handle(settled);
            } catch (Throwable t) {
                Context ctx = Vertx.currentContext();
                Handler<Throwable> h = ctx == null ? null : ctx.exceptionHandler();
                if (h != null) {
                    h.handle(t);
                }
                throw t;
            }
        };
        CompletableFuture<PoolStats> done = new CompletableFuture<>();
        PoolListener<T, R> listener = PoolListener.of(r -> reporting.handle(new Settled.Succeeded<>(r)),
                e -> reporting.handle(new Settled.Failed<>(e)));
        return run(pool, source, Sink.listening(listener, done::complete), processor, done);
    }

    private static <T, R, V> Future<V> run(AdaptivePoolImpl pool, Source<T> source, Sink<T, R> sink,
                                           FutureItemProcessor<? super T, R> processor, CompletableFuture<V> done) {
        Objects.requireNonNull(processor, "processor");
        AdaptiveLimiterImpl limiter = pool.limiterImpl();
        Context ctx = limiter.callerContext();
        Executor onContext = task -> {
            if (Vertx.currentContext() == ctx) {
                task.run();
            } else {
                ctx.runOnContext(v -> task.run());
            }
        };
        PoolEngine.Builder<R> runs = PoolEngine.<R>builder(limiter.limiter(),
                        (i, task, lease, hooks) -> limiter.start(i, task, lease, ctx, hooks))
                .followLimit(limiter::addLimitListener)
                .executor(onContext, task -> ctx.runOnContext(v -> task.run()))
                .yieldEvery(YIELD_EVERY)
                .deadline(pool.deadline())
                .cancellations(pool.cancellations());
        // Built and started on the context, so that one that refuses (its Vert.x closed) leaves
        // nothing behind: built first, the run held a listener on the shared limiter that
        // nothing would end.
        Runnable begin = () -> {
            PoolEngine<T, R> engine;
            try {
                engine = runs.build(source, sink, (item, tc) -> {
                    Future<R> f = processor.process(item, tc);
                    return f == null ? null : f.toCompletionStage();
                });
            } catch (Throwable noRun) {
                // The build throws what the limiter's ticker threw as it read the run's start,
                // with no run made; thrown here, it would be lost on the context and the
                // future never completed.
                done.completeExceptionally(noRun);
                return;
            }
            engine.start();
        };
        try {
            onContext.execute(begin);
        } catch (Throwable refused) {
            // Nothing runs on that context any more, and a future bound to it could not call
            // its handlers either (they would throw the same refusal): the call's failure is a
            // future of no context. A Future-returning call does not throw for it.
            return Future.failedFuture(refused);
        }
        // The sink completes on the context; so do the future's handlers.
        return Future.fromCompletionStage(done, ctx);
    }
}
