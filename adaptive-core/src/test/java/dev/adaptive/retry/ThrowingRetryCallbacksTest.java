package dev.adaptive.retry;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolRun;
import dev.adaptive.queue.ThrottledQueue;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A retry classifier or a jitter source that throws an {@code Error} (an
 * {@link AssertionError} from a test double, a {@link StackOverflowError}) gets the documented
 * fallback, as one that throws an exception does: the classifier means "retry" within the
 * budget, the random source means "no jitter". In the executor, the pool and the queue alike,
 * no task is lost.
 */
class ThrowingRetryCallbacksTest {

    private final VirtualTime time = new VirtualTime();

    private static RetryClassifier throwing(Throwable t) {
        return (error, attempt) -> {
            if (t instanceof Error e) {
                throw e;
            }
            throw (RuntimeException) t;
        };
    }

    private static RetryPolicy policy(RetryClassifier classifier) {
        return RetryPolicy.builder().retries(2).constant().minDelay(Duration.ofMillis(10)).noJitter()
                .retryOn(classifier).build();
    }

    @Test
    void shouldRetryFallsBackToRetryForAnyThrowable() {
        for (Throwable t : List.of(new AssertionError("test double"), new StackOverflowError(),
                new IllegalStateException("bug"), new InternalError("vm"))) {
            assertThat(policy(throwing(t)).shouldRetry(new IllegalStateException("down"), 1))
                    .as("classifier throwing %s", t).isTrue();
        }
    }

    @Test
    void aRandomSourceThatThrowsAnErrorMeansNoJitter() {
        DoubleSupplier broken = () -> {
            throw new AssertionError("random bug");
        };
        Backoff b = Backoff.constant(Duration.ofMillis(100)).withJitter(0.5);
        assertThat(b.delay(1, broken)).isEqualTo(Duration.ofMillis(100));
        RetryPolicy p = RetryPolicy.builder().constant().minDelay(Duration.ofMillis(100)).jitter(0.5)
                .random(() -> {
                    throw new StackOverflowError();
                }).build();
        assertThat(p.delayBeforeRetry(1)).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void theExecutorRetriesWhenItsClassifierThrowsAnError() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(policy(throwing(new AssertionError("classifier")))).build();
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<String> first = executor.execute(ctx -> calls.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(new IllegalStateException("down"))
                : CompletableFuture.completedFuture("third time"));
        CompletableFuture<String> next = executor.execute(ctx -> CompletableFuture.completedFuture("next"));
        time.runUntilIdle();
        assertThat(first).isCompletedWithValue("third time");
        assertThat(next).isCompletedWithValue("next");
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void theExecutorRetriesWhenTheJitterSourceThrowsAnError() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(RetryPolicy.builder().retries(1)
                .constant().minDelay(Duration.ofMillis(10)).jitter(0.5).random(() -> {
                    throw new AssertionError("random bug");
                }).build()).build();
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<String> r = executor.execute(ctx -> calls.incrementAndGet() == 1
                ? CompletableFuture.failedFuture(new IllegalStateException("down"))
                : CompletableFuture.completedFuture("again"));
        time.runUntilIdle();
        assertThat(r).isCompletedWithValue("again");
    }

    @Test
    void aPoolRunFinishesWhenItsClassifierThrowsAnError() {
        PoolRun<AdaptiveResult<Integer, Object>> run = ItemPool.of(List.of(1, 2, 3, 4))
                .withAlgorithm(FixedLimit.of(2)).withVirtualTime(time)
                .withRetryPolicy(policy(throwing(new AssertionError("classifier"))))
                .process((item, ctx) -> CompletableFuture.failedFuture(new IllegalStateException("down " + item)));
        time.runUntilIdle();
        assertThat(run.isDone()).isTrue();
        AdaptiveResult<Integer, Object> r = run.join();
        assertThat(r.errors()).hasSize(4);
        assertThat(r.stats().totalAttempts()).isEqualTo(12);
    }

    @Test
    void theQueueRetriesAndMovesOnWhenItsClassifierThrowsAnError() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(100).interval(Duration.ofSeconds(1)).time(time)
                .retries(2).retryClassifier(throwing(new AssertionError("classifier"))).build();
        CompletableFuture<Object> failing = q.submit(ctx -> CompletableFuture.failedFuture(new IllegalStateException("down")));
        CompletableFuture<Object> next = q.submit(ctx -> CompletableFuture.completedFuture("next"));
        time.runUntilIdle();
        assertThat(failing).isCompletedExceptionally();
        assertThat(next).isCompletedWithValue("next");
        assertThat(q.state().started()).isEqualTo(4);
        assertThat(q.state().retried()).isEqualTo(2);
        assertThat(q.state().active()).isZero();
        assertThat(q.awaitIdle()).isCompleted();
    }
}
