package dev.adaptive.vertx;

import dev.adaptive.contract.PoolContract;
import dev.adaptive.contract.PoolFace;
import dev.adaptive.contract.PushedInput;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.Settled;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batch runner's contract against the Vert.x {@link AdaptivePool}, on a real Vert.x in real
 * time: each run starts on one event-loop context, its limiter lives on another, and every
 * processor call and every handed-over item must happen on the run's context.
 */
class VertxPoolContractTest extends PoolContract {

    private static Vertx vertx;

    @BeforeAll
    static void startVertx() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stopVertx() {
        Await.result(vertx.close());
    }

    @Override
    protected PoolFace newFace() {
        return new VertxFace();
    }

    private static final class VertxFace extends PoolFace {
        private final Context runContext;
        private final List<AdaptiveLimiter> limiters = new CopyOnWriteArrayList<>();
        private final AtomicInteger offContext = new AtomicInteger();

        VertxFace() {
            this(vertx.getOrCreateContext());
        }

        private VertxFace(Context runContext) {
            this(runContext, VertxTime.on(runContext));
        }

        private VertxFace(Context runContext, VertxTime time) {
            super(time, time);
            this.runContext = runContext;
        }

        @Override
        public void await(CompletableFuture<?> event) {
            get(event);
        }

        @Override
        public <T, R> Run<AdaptiveResult<T, R>> process(Setup setup, Input<T> input, Task<T, R> task) {
            return run(setup, pool -> input instanceof Input.Pushed<T> pushed
                    ? pool.process(readStream(pushed.items()), processor(task))
                    : pool.process(((Input.Items<T>) input).items(), processor(task)));
        }

        @Override
        public <T, R> Run<PoolStats> stream(Setup setup, Input<T> input, Task<T, R> task,
                                            Consumer<Settled<T, R>> onItem) {
            Handler<Settled<T, R>> handler = settled -> {
                onRunContext();
                onItem.accept(settled);
            };
            return run(setup, pool -> input instanceof Input.Pushed<T> pushed
                    ? pool.stream(readStream(pushed.items()), processor(task), handler)
                    : pool.stream(((Input.Items<T>) input).items(), processor(task), handler));
        }

        private void onRunContext() {
            if (Vertx.currentContext() != runContext || !Context.isOnEventLoopThread()) {
                offContext.incrementAndGet();
            }
        }

        private <T, R> ItemProcessor<T, R> processor(Task<T, R> task) {
            return (item, ctx) -> {
                onRunContext();
                var stage = task.run(item, ctx);
                return stage == null ? null : Future.fromCompletionStage(stage, runContext);
            };
        }

        private <V> Run<V> run(Setup setup, Function<AdaptivePool, Future<V>> start) {
            AdaptiveOptions options = new AdaptiveOptions().setName("contract").setStatsAddress(null)
                    .setAlgorithm("fixed").setMaxLimit(setup.limit())
                    .setRetries(setup.retries()).setMaxRateLimitRetries(setup.maxRateLimitRetries())
                    .setBackoff("constant").setMinDelay(setup.backoff().toMillis())
                    .setMaxDelay(setup.backoff().toMillis()).setJitter(0);
            if (setup.taskTimeout() != null) {
                options.setTaskTimeout(setup.taskTimeout().toMillis());
            }
            // Created on the test thread: the limiter gets a context of its own, not the run's.
            AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, options);
            limiters.add(limiter);
            AdaptivePool pool = AdaptivePool.create(limiter);
            if (setup.deadline() != null) {
                pool = pool.withDeadline(setup.deadline());
            }
            if (setup.cancel() != null) {
                pool = pool.withCancellation(Future.fromCompletionStage(setup.cancel()));
            }
            AdaptivePool configured = pool;
            CompletableFuture<V> outcome = new CompletableFuture<>();
            runContext.runOnContext(v -> start.apply(configured).onComplete(ar -> {
                onRunContext();
                if (ar.succeeded()) {
                    outcome.complete(ar.result());
                } else {
                    outcome.completeExceptionally(ar.cause());
                }
            }));
            return new Run<>() {
                @Override
                public V await() {
                    V result = get(outcome);
                    assertThat(offContext).as("calls off the run's event-loop context").hasValue(0);
                    return result;
                }

                @Override
                public void closeLimiter() {
                    Await.result(limiter.close());
                }

                @Override
                public int inflight() {
                    return limiter.limiter().inflight();
                }
            };
        }

        @Override
        public void close() {
            limiters.forEach(l -> Await.result(l.close()));
        }

        private static <V> V get(CompletableFuture<V> f) {
            try {
                return f.get(Await.TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("failed: " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            } catch (TimeoutException e) {
                throw new AssertionError("not done within " + Await.TIMEOUT_SECONDS + " s", e);
            }
        }

        private static <T> ReadStream<T> readStream(PushedInput<T> input) {
            return new ReadStream<>() {
                private Handler<Throwable> onError;
                private Handler<Void> onEnd;
                private Handler<T> onItem;

                @Override
                public ReadStream<T> exceptionHandler(Handler<Throwable> handler) {
                    onError = handler;
                    return this;
                }

                @Override
                public ReadStream<T> handler(Handler<T> handler) {
                    boolean first = onItem == null && handler != null;
                    onItem = handler;
                    if (first) {
                        input.start(new PushedInput.Receiver<>() {
                            @Override
                            public void item(T item) {
                                onItem.handle(item);
                            }

                            @Override
                            public void end() {
                                onEnd.handle(null);
                            }

                            @Override
                            public void failed(Throwable failure) {
                                onError.handle(failure);
                            }
                        });
                    }
                    return this;
                }

                @Override
                public ReadStream<T> pause() {
                    input.pause();
                    return this;
                }

                @Override
                public ReadStream<T> resume() {
                    input.request(Long.MAX_VALUE);
                    return this;
                }

                @Override
                public ReadStream<T> fetch(long amount) {
                    input.request(amount);
                    return this;
                }

                @Override
                public ReadStream<T> endHandler(Handler<Void> handler) {
                    onEnd = handler;
                    return this;
                }
            };
        }
    }
}
