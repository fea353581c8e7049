package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What reclaims a lease nobody releases. For raw {@link Limiter} users: nothing (documented in
 * {@link Lease} and docs/reliability.md); for the executor and every face built on it: the task
 * timeout, or cancelling the execution. A late answer after the reclaim changes no counter.
 */
class AbandonedLeaseTest {

    private final VirtualTime time = new VirtualTime();

    @Test
    void aRawLeaseNeverReleasedHoldsItsSlotForever() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).waitTimeout(Duration.ofHours(1)).build();
        Lease abandoned = limiter.tryAcquire().orElseThrow();

        CompletableFuture<Lease> waiter = limiter.acquire();
        time.advance(Duration.ofDays(1));

        assertThat(limiter.inflight()).isEqualTo(1);
        assertThat(limiter.tryAcquire()).isEmpty();
        assertThat(waiter).isCompletedExceptionally();
        assertThatThrownBy(waiter::get).hasCauseInstanceOf(AcquireTimeoutException.class);
        assertThat(abandoned.isReleased()).isFalse();
    }

    @Test
    void theTaskTimeoutReclaimsTheSlotOfAnAttemptThatNeverAnswers() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(RetryPolicy.none())
                .taskTimeout(Duration.ofSeconds(2)).build();
        CompletableFuture<String> never = new CompletableFuture<>();
        CompletableFuture<String> hung = executor.execute(ctx -> never);
        CompletableFuture<String> next = executor.execute(ctx -> CompletableFuture.completedFuture("next"));

        time.advance(Duration.ofMillis(1999));
        assertThat(limiter.inflight()).isEqualTo(1);
        assertThat(next).isNotDone();

        time.advance(Duration.ofMillis(1));
        assertThat(hung).isCompletedExceptionally();
        assertThatThrownBy(hung::get).hasCauseInstanceOf(TaskTimeoutException.class);
        assertThat(next).isCompletedWithValue("next");
        assertThat(limiter.inflight()).isZero();

        // The abandoned stage answers late: ignored, no double release, no negative in-flight.
        never.complete("late");
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.tryAcquire()).isPresent();
        assertThat(limiter.stats().congestionEvents()).isEqualTo(1);
    }

    @Test
    void cancellingTheExecutionReclaimsTheSlotAndFiresTheAttemptsCancellation() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).build();
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        Execution<String> e = executor.start(0, ctx -> {
            ctx.cancellation().onCancel(() -> seen.complete(ctx.cancellation().reason()));
            return new CompletableFuture<>();
        }, null);
        assertThat(limiter.inflight()).isEqualTo(1);

        IllegalStateException reason = new IllegalStateException("caller gave up");
        assertThat(e.cancel(reason)).isTrue();

        assertThat(limiter.inflight()).isZero();
        assertThat(seen).isCompletedWithValue(reason);
        assertThat(e.result()).isCompletedExceptionally();
        assertThat(e.cancel(reason)).isFalse();
    }

    @Test
    void aLeaseReleasedTwiceFromTwoThreadsCountsOnce() throws Exception {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(4)).time(time).build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 2_000; i++) {
                Lease lease = limiter.tryAcquire().orElseThrow();
                CompletableFuture<Boolean> a = CompletableFuture.supplyAsync(() -> lease.release(Outcome.SUCCESS), pool);
                CompletableFuture<Boolean> b = CompletableFuture.supplyAsync(() -> lease.release(Outcome.DROPPED), pool);
                assertThat(a.get(30, TimeUnit.SECONDS) ^ b.get(30, TimeUnit.SECONDS)).as("exactly one release counts").isTrue();
                assertThat(limiter.inflight()).isZero();
            }
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
