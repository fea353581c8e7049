package dev.adaptive;

import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real threads and the real clock: submitters start executions while a chaos thread pauses and
 * resumes the limiter, moves its ceiling, opens Retry-After pauses, and cancels executions, and
 * attempts answer (or hang until their task timeout) on a worker pool. At the end the limiter
 * is aborted mid-flight. Every execution must end exactly once and the limiter must settle at
 * zero in flight and zero waiting. Bounded: a few thousand executions, millisecond waits.
 */
class ExecutorChaosStressTest {

    @Test
    @Timeout(120)
    void everyExecutionEndsOnceUnderChaos() throws Exception {
        ScheduledExecutorService workers = Executors.newScheduledThreadPool(3);
        Limiter limiter = Limiter.builder().limit(Vegas.builder().initialLimit(8).minLimit(2).maxLimit(32).build())
                .maxRetryAfter(Duration.ofMillis(20)).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(2).minDelay(Duration.ofMillis(1)).maxDelay(Duration.ofMillis(5))
                        .maxRetryAfter(Duration.ofMillis(20)).build())
                .taskTimeout(Duration.ofMillis(50)).build();
        ConcurrentLinkedQueue<Execution<Integer>> all = new ConcurrentLinkedQueue<>();
        AtomicInteger completions = new AtomicInteger();
        // The counting stages themselves: a stage registered on a result later (the wait below)
        // may run before them, so waiting on the results alone can read the count one short.
        ConcurrentLinkedQueue<CompletableFuture<Integer>> ended = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        int submitters = 3;
        int each = 1500;
        try {
            List<Thread> threads = new java.util.ArrayList<>();
            for (int t = 0; t < submitters; t++) {
                long seed = t;
                threads.add(new Thread(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    await(go);
                    for (int i = 0; i < each; i++) {
                        int roll = rnd.nextInt(100);
                        Execution<Integer> e = executor.start(i, ctx -> answer(workers, roll), null);
                        ended.add(e.result().whenComplete((v, err) -> completions.incrementAndGet()));
                        all.add(e);
                    }
                }, "submitter-" + t));
            }
            Thread chaos = new Thread(() -> {
                SplittableRandom rnd = new SplittableRandom(99);
                await(go);
                while (all.size() < submitters * each) {
                    switch (rnd.nextInt(5)) {
                        case 0 -> limiter.pause();
                        case 1 -> limiter.resume();
                        case 2 -> limiter.ceiling(rnd.nextBoolean() ? 1 + rnd.nextInt(8) : Integer.MAX_VALUE);
                        case 3 -> limiter.pauseFor(Duration.ofMillis(rnd.nextInt(10)));
                        default -> {
                            Execution<Integer> e = all.peek();
                            if (e != null) {
                                e.cancel(new IllegalStateException("chaos"));
                            }
                        }
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                }
                limiter.resume();
                limiter.ceiling(Integer.MAX_VALUE);
            }, "chaos");
            threads.add(chaos);
            threads.forEach(Thread::start);
            go.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
            }
            // Let about half finish normally, then abort with the rest queued or in flight.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (completions.get() < all.size() / 2 && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            limiter.abort();
            CompletableFuture.allOf(ended.stream().map(c -> c.exceptionally(x -> -1)).toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);

            assertThat(all).hasSize(submitters * each);
            assertThat(completions.get()).isEqualTo(submitters * each);
            // In-flight attempts still end by their answer or their timeout after the abort.
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (limiter.inflight() > 0 && System.nanoTime() < settle) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            assertThat(limiter.inflight()).isZero();
            assertThat(limiter.waiting()).isZero();
            assertThat(limiter.state()).isEqualTo(LimiterState.ABORTED);
        } finally {
            workers.shutdownNow();
        }
    }

    private static CompletableFuture<Integer> answer(ScheduledExecutorService workers, int roll) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        if (roll < 3) {
            return f; // hangs until the task timeout reclaims it
        }
        workers.schedule(() -> {
            if (roll < 10) {
                f.completeExceptionally(new IllegalStateException("500"));
            } else if (roll < 14) {
                f.completeExceptionally(new RateLimitedException(Duration.ofMillis(ThreadLocalRandom.current().nextInt(5))));
            } else {
                f.complete(roll);
            }
        }, roll % 3, TimeUnit.MILLISECONDS);
        return f;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
