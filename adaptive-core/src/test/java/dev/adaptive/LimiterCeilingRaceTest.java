package dev.adaptive;

import dev.adaptive.limit.Aimd;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet member lowers a limiter's ceiling while request threads fold samples that move the
 * local limit. Both publish the effective limit; the later must not be overwritten by the
 * earlier, and no lease may be granted past a ceiling once it is set.
 */
class LimiterCeilingRaceTest {

    private static final int THREADS = 3;
    private static final int ROUNDS = 300;

    @Test
    void theEffectiveLimitAlwaysSettlesOnMinOfLocalAndCeiling() throws Exception {
        Limiter limiter = Limiter.builder()
                .limit(Aimd.builder().minLimit(1).initialLimit(50).maxLimit(100).backoffRatio(0.9).build())
                .time(new VirtualTime())
                .build();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger overCeiling = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = t;
            Thread thread = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                try {
                    start.await();
                    while (running.get()) {
                        int ceiling = limiter.ceiling();
                        Lease lease = limiter.tryAcquire().orElse(null);
                        if (lease == null) {
                            Thread.onSpinWait();
                            continue;
                        }
                        // The ceiling read before tryAcquire was in force for its whole duration
                        // only if unchanged after it; then the grant must respect it.
                        if (lease.inflightAtStart() > ceiling && limiter.ceiling() == ceiling) {
                            overCeiling.incrementAndGet();
                        }
                        lease.release(random.nextInt(4) == 0 ? Outcome.DROPPED : Outcome.SUCCESS);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        SplittableRandom random = new SplittableRandom(99);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                limiter.ceiling(1 + random.nextInt(60));
                int local = limiter.localLimit();
                int ceiling = limiter.ceiling();
                // Folds keep running: the published limit may lag by the fold in progress, never
                // by a lost update; it must match one of the inputs it was built from.
                assertThat(limiter.limit()).isLessThanOrEqualTo(ceiling);
                assertThat(local).isPositive();
            }
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join();
            }
        }
        assertThat(errors).isEmpty();
        assertThat(overCeiling.get()).isZero();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.limit()).isEqualTo(Math.min(limiter.localLimit(), limiter.ceiling()));
    }
}
