package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolRun;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The retry budget a limiter shares among every retry through it, in virtual time. */
class RetryBudgetTest {

    private final VirtualTime time = new VirtualTime();
    private final List<TraceEvent> events = new ArrayList<>();

    private AdaptiveExecutor executor(RetryBudget budget, int retries) {
        // The budget alone: the outage rule would probe the total outages these tests make.
        Limiter l = Limiter.builder().limit(FixedLimit.of(10)).time(time).traceListener(events::add).retryBudget(budget)
                .outageProbe(Duration.ZERO).build();
        return AdaptiveExecutor.builder(l).retryPolicy(RetryPolicy.builder().retries(retries).constant()
                .minDelay(Duration.ofMillis(10)).noJitter().build()).build();
    }

    private List<CompletableFuture<String>> run(AdaptiveExecutor ex, int items, Object reply) {
        List<CompletableFuture<String>> out = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            out.add(ex.execute(ctx -> Replies.after(time, Duration.ofMillis(5), reply)));
        }
        time.runUntilIdle();
        return out;
    }

    private static Throwable failure(CompletableFuture<?> f) {
        return f.handle((v, t) -> OutcomeClassifier.unwrap(t)).join();
    }

    @Test
    void theDefaultsAreFinaglesAndEveryLimiterHasThem() {
        assertThat(RetryBudget.defaults()).isEqualTo(new RetryBudget(0.2, 10, Duration.ofSeconds(10)));
        assertThat(Limiter.create().retryBudget()).isEqualTo(RetryBudget.defaults());
        assertThat(RetryBudget.unlimited().isUnlimited()).isTrue();
        assertThat(RetryBudget.defaults().isUnlimited()).isFalse();
    }

    @Test
    void badValuesNameTheOption() {
        assertThatThrownBy(() -> new RetryBudget(-0.1, 1, Duration.ofSeconds(1)))
                .hasMessage("retryBudgetRatio must be >= 0: -0.1");
        assertThatThrownBy(() -> new RetryBudget(Double.NaN, 1, Duration.ofSeconds(1)))
                .hasMessage("retryBudgetRatio must be >= 0: NaN");
        assertThatThrownBy(() -> new RetryBudget(0.2, -1, Duration.ofSeconds(1)))
                .hasMessage("retryBudgetMinPerSecond must be a finite number >= 0: -1.0");
        assertThatThrownBy(() -> new RetryBudget(0.2, 1, Duration.ZERO))
                .hasMessage("retryBudgetWindow must be positive and at most 1d: PT0S");
        assertThatThrownBy(() -> new RetryBudget(0.2, 1, Duration.ofDays(2)))
                .hasMessage("retryBudgetWindow must be positive and at most 1d: PT48H");
    }

    @Test
    void anOutageGetsRetriesOnlyUpToTheShareOfFirstAttempts() {
        AdaptiveExecutor ex = executor(new RetryBudget(0.1, 0, Duration.ofSeconds(10)), 3);
        IllegalStateException down = new IllegalStateException("500");
        List<CompletableFuture<String>> results = run(ex, 100, down);

        long attempts = events.stream().filter(TraceEvent.TaskStart.class::isInstance).count();
        long refused = events.stream().filter(TraceEvent.RetryRefused.class::isInstance).count();
        // 100 failed first attempts pay for 10 retries, however the refusals and grants interleave
        // (ten at a time run, so the run of failures grows while the first retries ask).
        assertThat(attempts).isEqualTo(110);
        assertThat(refused).isEqualTo(ex.limiter().stats().retriesRefused()).isGreaterThanOrEqualTo(90);
        assertThat(results).allSatisfy(r -> assertThat(r).isCompletedExceptionally());
        List<Throwable> ends = results.stream().map(RetryBudgetTest::failure).toList();
        // An item the budget refused ends with its error once its retries are spent waiting;
        // one whose three retries were all granted ends with its own last failure.
        assertThat(ends).filteredOn(RetryBudgetExhaustedException.class::isInstance).hasSizeGreaterThanOrEqualTo(90)
                .allSatisfy(t -> {
                    assertThat(t.getCause()).isSameAs(down);
                    assertThat(t.getMessage()).startsWith("limiter 'limiter': retry budget exhausted, ")
                            .contains("first attempts in the last PT10S")
                            .contains("(retryBudgetRatio=0.1, retryBudgetMinPerSecond=0.0)");
                });
        assertThat(ends).filteredOn(t -> !(t instanceof RetryBudgetExhaustedException)).allSatisfy(t -> assertThat(t).isSameAs(down));
        assertThat(ex.limiter().inflight()).isZero();
    }

    @Test
    void theFloorAllowsRetriesWithoutFirstAttempts() {
        AdaptiveExecutor ex = executor(new RetryBudget(0, 1, Duration.ofSeconds(5)), 10);
        List<CompletableFuture<String>> r = run(ex, 1, new IllegalStateException("500"));
        // 1 per second over a 5 s window: 5 retries sent; the other 5 asked within the window, refused.
        assertThat(events).filteredOn(TraceEvent.TaskStart.class::isInstance).hasSize(6);
        assertThat(events).filteredOn(TraceEvent.RetryRefused.class::isInstance).hasSize(5);
        assertThat(failure(r.get(0))).isInstanceOf(RetryBudgetExhaustedException.class);
    }

    @Test
    void aRefusedRetryWaitsItsNextBackoffAndSucceedsWhenTheBudgetAllowsAgain() {
        // The floor alone, one retry per 5 s window: the first retry (asked at 1 s) is granted, the
        // second, asked at 2 s, 3 s, 4 s and 5 s, refused; at 6 s the first has left the window.
        AdaptiveExecutor ex = AdaptiveExecutor.builder(Limiter.builder().limit(FixedLimit.of(10)).time(time)
                        .traceListener(events::add).retryBudget(new RetryBudget(0, 0.2, Duration.ofSeconds(5))).build())
                .retryPolicy(RetryPolicy.builder().retries(10).constant().minDelay(Duration.ofSeconds(1)).noJitter().build())
                .build();
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<String> r = ex.execute(ctx -> calls.incrementAndGet() <= 2
                ? Replies.after(time, Duration.ofMillis(5), new IllegalStateException("500"))
                : Replies.after(time, Duration.ofMillis(5), "ok"));
        time.runUntilIdle();
        assertThat(r).isCompletedWithValue("ok");
        assertThat(calls.get()).isEqualTo(3);
        assertThat(events).filteredOn(TraceEvent.RetryRefused.class::isInstance).hasSize(4);
        assertThat(ex.limiter().stats().retriesRefused()).isEqualTo(4);
    }

    @Test
    void rateLimitRetriesDrawOnTheSameBudget() {
        AdaptiveExecutor ex = executor(new RetryBudget(0, 0.4, Duration.ofSeconds(10)), 0);
        List<CompletableFuture<String>> r = run(ex, 1, new RateLimitedException(Duration.ofMillis(100)));
        assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).hasSize(4);
        assertThat(failure(r.get(0))).isInstanceOf(RetryBudgetExhaustedException.class)
                .hasCauseInstanceOf(RateLimitedException.class);
    }

    @Test
    void theWindowForgetsOldRetries() {
        AdaptiveExecutor ex = executor(new RetryBudget(0, 0.1, Duration.ofSeconds(10)), 1);
        IllegalStateException down = new IllegalStateException("500");
        run(ex, 2, down);
        assertThat(ex.limiter().stats().retriesRefused()).isEqualTo(1);
        time.advance(Duration.ofSeconds(11));
        run(ex, 1, down);
        assertThat(ex.limiter().stats().retriesRefused()).as("the retry of 11 s ago left the window").isEqualTo(1);
    }

    @Test
    void anUnlimitedBudgetRefusesNothing() {
        AdaptiveExecutor ex = executor(RetryBudget.unlimited(), 3);
        run(ex, 50, new IllegalStateException("500"));
        assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).hasSize(150);
        assertThat(ex.limiter().stats().retriesRefused()).isZero();
    }

    @Test
    void aPoolSharesOneBudgetAmongItsItems() {
        AtomicInteger attempts = new AtomicInteger();
        PoolRun<AdaptiveResult<Integer, String>> run = ItemPool.of(IntStream.range(0, 50).boxed().toList())
                .withVirtualTime(time).withRetryPolicy(RetryPolicy.builder().retries(3).noJitter().build())
                .withRetryBudget(new RetryBudget(0.1, 0, Duration.ofSeconds(10))).withOutageProbe(Duration.ZERO)
                .<String>process((item, ctx) -> {
                    attempts.incrementAndGet();
                    return Replies.<String>after(time, Duration.ofMillis(5), new IllegalStateException("500"));
                });
        time.runUntilIdle();
        AdaptiveResult<Integer, String> r = run.join();
        assertThat(r.errors()).hasSize(50);
        assertThat(r.errors()).filteredOn(e -> e.error() instanceof RetryBudgetExhaustedException).hasSizeGreaterThanOrEqualTo(45);
        assertThat(attempts.get()).as("50 first attempts and at most 5 retries").isBetween(50 + 4, 55);
        assertThat(run.limiter().stats().retriesRefused()).isGreaterThanOrEqualTo(45);
    }

    /**
     * A reading older than the newest the budget has counted in (one that stands in for a reading
     * the ticker could not make, or a lease's start stamped on another thread) is counted as of
     * the newest: it neither empties a newer bucket that shares its slot nor brings back what
     * has left the window.
     */
    @Test
    void aReadingOlderThanTheNewestCountsAsOfTheNewestAndEmptiesNothing() {
        long second = Duration.ofSeconds(1).toNanos();
        // The floor alone: one retry per 10 s window.
        RetryAllowance budget = new RetryAllowance(new RetryBudget(0, 0.1, Duration.ofSeconds(10)));

        assertThat(budget.tryRetry(25 * second)).as("the first retry, at 25 s").isTrue();
        assertThat(budget.tryRetry(5 * second)).as("one asked with a reading of 5 s, in the slot of 25 s").isFalse();
        assertThat(budget.tryRetry(34 * second)).as("one at 34 s, the retry of 25 s still in the window").isFalse();
        assertThat(budget.tryRetry(35 * second)).as("one at 35 s, the retry of 25 s gone").isTrue();
        assertThat(budget.refused()).isEqualTo(2);
    }

    /**
     * First attempts in the newest bucket are counted without the budget's monitor and added to
     * that bucket before it changes: each allows its share of retries while in the window and
     * leaves it with its bucket, whether the bucket changed through another first attempt or
     * through a retry.
     */
    @Test
    void firstAttemptsCountedOutsideTheMonitorAllowRetriesUntilTheirBucketLeaves() {
        long second = Duration.ofSeconds(1).toNanos();
        // Ratio alone: one retry per ten first attempts in a 10 s window of 1 s buckets.
        RetryAllowance budget = new RetryAllowance(new RetryBudget(0.1, 0, Duration.ofSeconds(10)));

        for (int i = 0; i < 20; i++) {
            budget.firstAttempt(2 * second + i); // the first opens the bucket of 2 s, the rest join it
        }
        budget.firstAttempt(second); // an older reading: counted in the newest bucket, 2 s
        budget.firstAttempt(3 * second); // a new bucket: the 21 of 2 s are added to theirs first
        assertThat(budget.describe()).startsWith("0 retries against 22 first attempts");
        assertThat(budget.tryRetry(4 * second)).isTrue();
        assertThat(budget.tryRetry(4 * second)).isTrue();
        assertThat(budget.tryRetry(4 * second)).as("22 first attempts allow 2.2 retries").isFalse();
        for (int i = 0; i < 10; i++) {
            budget.firstAttempt(4 * second + i);
        }
        assertThat(budget.tryRetry(4 * second)).as("ten more, counted outside the monitor, allow one more").isTrue();
        assertThat(budget.describe()).startsWith("3 retries against 32 first attempts");
        assertThat(budget.tryRetry(12 * second)).as("at 12 s, the 21 of 2 s have left the window").isFalse();
        assertThat(budget.describe()).startsWith("3 retries against 11 first attempts");
        assertThat(budget.tryRetry(14 * second + 1)).as("at 14 s the ones of 3 and 4 s and the retries of 4 s have left")
                .isFalse();
        assertThat(budget.describe()).startsWith("0 retries against 0 first attempts");
    }

    /** Senders on several threads, in one bucket and across a change of bucket: none is lost. */
    @Test
    void firstAttemptsFromSeveralThreadsAreAllCounted() throws Exception {
        long second = Duration.ofSeconds(1).toNanos();
        RetryAllowance budget = new RetryAllowance(new RetryBudget(0.1, 0, Duration.ofSeconds(10)));
        int threads = 4;
        int each = 20_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread sender = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < each; i++) {
                    // Half in the bucket of 1 s, half in that of 2 s: the change races the adds.
                    budget.firstAttempt(i < each / 2 ? second : 2 * second);
                }
            });
            senders.add(sender);
            sender.start();
        }
        for (Thread sender : senders) {
            sender.join(60_000);
            assertThat(sender.isAlive()).isFalse();
        }
        assertThat(budget.describe()).startsWith("0 retries against " + threads * each + " first attempts");
    }
}
