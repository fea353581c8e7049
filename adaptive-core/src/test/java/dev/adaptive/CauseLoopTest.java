package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolRun;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cause chains that loop ({@code a -> b -> a}, legal with {@code initCause}) or that name
 * themselves through an overridden {@code getCause()}: every walk ends. The timeouts only keep
 * a regression from hanging the build; they run the test on its own thread so that a spinning
 * walk cannot hold the runner.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CauseLoopTest {

    private final VirtualTime time = new VirtualTime();

    /** @return {@code a}, where {@code a -> b -> a} */
    private static RuntimeException loop() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        return a;
    }

    @Test
    void theDefaultClassifierReadsALoopingChainAsADrop() {
        RuntimeException a = loop();
        assertThat(OutcomeClassifier.findRateLimited(a)).isNull();
        assertThat(OutcomeClassifier.defaults().classify(null, a)).isEqualTo(Outcome.DROPPED);
    }

    @Test
    void aRateLimitInsideALoopIsStillFound() {
        RuntimeException a = new RuntimeException("a");
        RateLimitedException rl = new RateLimitedException("429", Duration.ofSeconds(3));
        rl.initCause(a);
        a.initCause(new IllegalStateException("b", rl));
        assertThat(OutcomeClassifier.findRateLimited(a)).isSameAs(rl);
        assertThat(OutcomeClassifier.defaults().classify(null, a)).isEqualTo(Outcome.rateLimited(Duration.ofSeconds(3)));
    }

    @Test
    void aCauseThatNamesAnotherLinkThroughAnOverriddenGetCauseEnds() {
        RuntimeException b = new RuntimeException("b");
        RuntimeException a = new RuntimeException("a") {
            @Override
            public synchronized Throwable getCause() {
                return b;
            }
        };
        b.initCause(a);
        RuntimeException broken = new RuntimeException("broken") {
            @Override
            public synchronized Throwable getCause() {
                throw new IllegalStateException("getCause bug");
            }
        };
        assertThat(OutcomeClassifier.findRateLimited(a)).isNull();
        assertThat(OutcomeClassifier.findRateLimited(broken)).isNull();
    }

    @Test
    void unwrapEndsOnWrappersThatWrapEachOther() {
        CompletionException outer = new CompletionException("outer") {
        };
        CompletionException inner = new CompletionException("inner", outer);
        outer.initCause(inner);
        assertThat(OutcomeClassifier.unwrap(outer)).isSameAs(outer);
        IllegalStateException cause = new IllegalStateException("cause");
        assertThat(OutcomeClassifier.unwrap(new CompletionException(new CompletionException(cause)))).isSameAs(cause);
    }

    @Test
    void retryOnTypesEndsOnALoop() {
        RuntimeException a = loop();
        assertThat(RetryClassifier.on(IllegalStateException.class).shouldRetry(a, 1)).isFalse();
        assertThat(RetryClassifier.on(RuntimeException.class).shouldRetry(a, 1)).isTrue();
    }

    @Test
    void anExecutionWhoseTaskFailsWithALoopEndsAndFreesItsSlot() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(RetryPolicy.none()).build();
        RuntimeException a = loop();
        CompletableFuture<Object> result = executor.execute(ctx -> CompletableFuture.failedFuture(a));
        CompletableFuture<Object> thrown = executor.execute(ctx -> {
            throw loop();
        });
        time.runUntilIdle();
        assertThat(result).isCompletedExceptionally();
        assertThat(result.handle((v, e) -> e).join()).isSameAs(a);
        assertThat(thrown).isCompletedExceptionally();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
        assertThat(limiter.stats().congestionEvents()).isEqualTo(2);
    }

    @Test
    void aPoolRunWhoseItemsFailWithLoopsFinishes() {
        PoolRun<AdaptiveResult<Integer, Object>> run = ItemPool.of(List.of(1, 2, 3))
                .withAlgorithm(FixedLimit.of(2)).withVirtualTime(time)
                .withRetryPolicy(RetryPolicy.builder().retries(1).minDelay(Duration.ofMillis(10)).build())
                .process((item, ctx) -> CompletableFuture.failedFuture(loop()));
        time.runUntilIdle();
        AdaptiveResult<Integer, Object> r = run.join();
        assertThat(r.errors()).hasSize(3);
        assertThat(r.stats().totalAttempts()).isEqualTo(6);
        assertThat(run.limiter().inflight()).isZero();
    }
}
