package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import dev.adaptive.RateLimitedException;
import dev.adaptive.RejectedException;
import dev.adaptive.retry.Backoff;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random interleavings of submit, pause, resume, stop, abort and time, with failing, retried and
 * rate-limited tasks: every accepted task ends exactly once, and the counters add up.
 */
class QueueNothingLostTest {

    /** What one submitted task did. */
    private static final class Tracked {
        final CompletableFuture<Object> future;
        final AtomicInteger calls;
        final AtomicInteger successes;
        final AtomicInteger completions = new AtomicInteger();

        Tracked(CompletableFuture<Object> future, AtomicInteger calls, AtomicInteger successes) {
            this.future = future;
            this.calls = calls;
            this.successes = successes;
            future.whenComplete((v, e) -> completions.incrementAndGet());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
            21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40})
    void everyAcceptedTaskEndsExactlyOnce(long seed) {
        Random rnd = new Random(seed);
        VirtualTime time = new VirtualTime();
        int minRate = 1 + rnd.nextInt(5);
        ThrottledQueueBuilder b = ThrottledQueue.builder().time(time)
                .minRate(minRate).maxRate(minRate + rnd.nextInt(6))
                .interval(Duration.ofMillis(100 + rnd.nextInt(900)))
                .evenlySpaced(rnd.nextBoolean())
                .errorsPerInterval(1 + rnd.nextInt(3))
                .backOff(rnd.nextBoolean())
                .retries(rnd.nextInt(3))
                .retryBackoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofSeconds(1)).withJitter(0.3))
                .random(new Random(seed * 31)::nextDouble)
                .maxRetryAfter(Duration.ofSeconds(2))
                .adjustmentTiming(rnd.nextBoolean() ? AdjustmentTiming.INTERVAL : AdjustmentTiming.SETTLED)
                .rateStrategy(rnd.nextBoolean() ? RateStrategy.linear() : RateStrategy.aimd());
        if (rnd.nextBoolean()) {
            b.concurrency(1 + rnd.nextInt(4));
        }
        if (rnd.nextBoolean()) {
            b.maxQueueSize(5 + rnd.nextInt(20));
        }
        ThrottledQueue q = b.build();
        boolean mayAbort = seed % 4 == 0;

        List<Tracked> accepted = new ArrayList<>();
        int rejected = 0;
        for (int step = 0; step < 300; step++) {
            int op = rnd.nextInt(100);
            if (op < 45) {
                Tracked t = submit(q, time, rnd);
                if (t.future.isCompletedExceptionally() && cause(t.future) instanceof RejectedException) {
                    rejected++;
                } else {
                    accepted.add(t);
                }
            } else if (op < 52) {
                q.pause();
            } else if (op < 62) {
                q.resume();
            } else if (op < 68) {
                q.stop();
            } else if (op < 69 && mayAbort) {
                q.abort();
            } else {
                time.advance(Duration.ofMillis(rnd.nextInt(400)));
            }
            QueueState s = q.state();
            if (s.status() != QueueStatus.ABORTED) {
                assertThat(s.started()).isEqualTo(s.succeeded() + s.failed() + s.active());
            }
            assertThat(s.rate()).isBetween(minRate, minRate + 5);
        }
        q.resume();
        time.runUntilIdle();

        assertThat(time.uncaught()).isEmpty();
        QueueState end = q.state();
        assertThat(end.idle()).isTrue();
        assertThat(q.awaitIdle()).isCompleted();
        int succeeded = 0;
        for (Tracked t : accepted) {
            assertThat(t.future).isDone();
            assertThat(t.completions).hasValue(1);
            if (t.future.isCompletedExceptionally()) {
                assertThat(t.successes).as("a failed task never succeeded").hasValue(0);
            } else {
                assertThat(t.successes).as("a task succeeds once, then is never called again").hasValue(1);
                succeeded++;
            }
        }
        assertThat(accepted.size() + rejected).isGreaterThan(0);
        if (end.status() != QueueStatus.ABORTED) {
            assertThat(end.succeeded()).isEqualTo(succeeded);
            assertThat(end.started()).isEqualTo(end.succeeded() + end.failed());
            assertThat(accepted.stream().mapToInt(t -> t.calls.get()).sum()).isEqualTo(end.started());
            assertThat(accepted).noneSatisfy(t -> assertThat(cause(t.future)).isInstanceOf(QueueAbortedException.class));
        }
    }

    private static Tracked submit(ThrottledQueue q, VirtualTime time, Random rnd) {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger successes = new AtomicInteger();
        long latency = rnd.nextInt(300);
        int failPercent = rnd.nextInt(60);
        boolean rateLimited = rnd.nextInt(10) == 0;
        Random own = new Random(rnd.nextLong());
        AsyncTask<Object> task = ctx -> {
            calls.incrementAndGet();
            CompletableFuture<Object> f = new CompletableFuture<>();
            boolean fail = own.nextInt(100) < failPercent;
            time.schedule(() -> {
                if (ctx.cancellation().isCancelled()) {
                    // A well-behaved task stops when the queue aborts.
                    f.completeExceptionally(ctx.cancellation().reason());
                } else if (!fail) {
                    successes.incrementAndGet();
                    f.complete(ctx.index());
                } else if (rateLimited) {
                    f.completeExceptionally(new RateLimitedException(Duration.ofMillis(own.nextInt(3000))));
                } else {
                    f.completeExceptionally(new IllegalStateException("attempt " + ctx.attempt()));
                }
            }, Duration.ofMillis(latency));
            return f;
        };
        return new Tracked(q.submit(task), calls, successes);
    }

    private static Throwable cause(CompletableFuture<Object> f) {
        if (!f.isCompletedExceptionally()) {
            return null;
        }
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }
}
