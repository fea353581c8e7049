package dev.adaptive.pool;

import dev.adaptive.contract.PoolContract;
import dev.adaptive.contract.PoolFace;
import dev.adaptive.contract.PushedInput;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/** The batch runner's contract against the plain Java {@link ItemPool}, in virtual time. */
class CorePoolContractTest extends PoolContract {

    @Override
    protected PoolFace newFace() {
        return new CoreFace();
    }

    /** The core pool on one {@link VirtualTime}: awaiting runs that time until the run ended. */
    private static final class CoreFace extends PoolFace {
        private final VirtualTime time;

        CoreFace() {
            this(new VirtualTime());
        }

        private CoreFace(VirtualTime time) {
            super(time, time);
            this.time = time;
        }

        @Override
        public void await(CompletableFuture<?> event) {
            while (!event.isDone() && time.runNext()) {
                // one task at a time, so that time stops right after the event
            }
            assertThat(event).as("the awaited event happened").isDone();
        }

        @Override
        public <T, R> Run<AdaptiveResult<T, R>> process(Setup setup, Input<T> input, Task<T, R> task) {
            return run(pool(setup, input).process((item, ctx) -> task.run(item, ctx)));
        }

        @Override
        public <T, R> Run<PoolStats> stream(Setup setup, Input<T> input, Task<T, R> task,
                                            Consumer<Settled<T, R>> onItem) {
            return run(pool(setup, input).stream((T item, dev.adaptive.TaskContext ctx) -> task.run(item, ctx),
                    PoolListener.<T, R>of(r -> onItem.accept(new Settled.Succeeded<>(r)),
                            e -> onItem.accept(new Settled.Failed<>(e)))));
        }

        private <T> ItemPool<T> pool(Setup setup, Input<T> input) {
            ItemPool<T> pool = input instanceof Input.Pushed<T> pushed
                    ? ItemPool.of(publisher(pushed.items()))
                    : ItemPool.of(((Input.Items<T>) input).items());
            pool.withVirtualTime(time)
                    .withAlgorithm(FixedLimit.of(setup.limit()))
                    .withRetryPolicy(RetryPolicy.builder().retries(setup.retries())
                            .maxRateLimitRetries(setup.maxRateLimitRetries())
                            .constant().minDelay(setup.backoff()).noJitter().build());
            if (setup.taskTimeout() != null) {
                pool.withTaskTimeout(setup.taskTimeout());
            }
            if (setup.deadline() != null) {
                pool.withDeadline(setup.deadline());
            }
            if (setup.cancel() != null) {
                pool.withCancellation(setup.cancel());
            }
            return pool;
        }

        private <V> Run<V> run(PoolRun<V> run) {
            return new Run<>() {
                @Override
                public V await() {
                    time.runUntilIdle();
                    assertThat(time.uncaught()).as("failures inside scheduled tasks").isEmpty();
                    assertThat(run.isDone()).as("the run ended").isTrue();
                    return run.join();
                }

                @Override
                public void closeLimiter() {
                    run.limiter().abort();
                }

                @Override
                public int inflight() {
                    return run.limiter().inflight();
                }
            };
        }

        private static <T> Flow.Publisher<T> publisher(PushedInput<T> input) {
            return subscriber -> {
                subscriber.onSubscribe(new Flow.Subscription() {
                    @Override
                    public void request(long n) {
                        input.request(n);
                    }

                    @Override
                    public void cancel() {
                        input.pause();
                    }
                });
                input.start(new PushedInput.Receiver<>() {
                    @Override
                    public void item(T item) {
                        subscriber.onNext(item);
                    }

                    @Override
                    public void end() {
                        subscriber.onComplete();
                    }

                    @Override
                    public void failed(Throwable failure) {
                        subscriber.onError(failure);
                    }
                });
            };
        }
    }
}
