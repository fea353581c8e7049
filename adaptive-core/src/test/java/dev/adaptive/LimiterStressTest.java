package dev.adaptive;

import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Vegas;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real threads hammering one limiter. The limiter adapts (Vegas on the real ticker), so the
 * limit moves under the threads' feet; leases are released with random outcomes, sometimes
 * twice and sometimes from another thread.
 */
class LimiterStressTest {

    private static final int THREADS = 4;
    private static final int PAIRS_PER_THREAD = 250_000;

    @Test
    void millionAcquireReleasePairsEndAtZeroInflightAndCountEachLeaseOnce() throws Exception {
        // Pauses would need a real scheduler; the virtual one never runs, so rate limits here
        // carry no Retry-After and test only the counting.
        VirtualTime neverAdvanced = new VirtualTime();
        Limiter limiter = Limiter.builder()
                .limit(Vegas.builder().minLimit(2 * THREADS).initialLimit(16).maxLimit(64).build())
                .ticker(Ticker.system())
                .scheduler(neverAdvanced)
                // An outage's probes are timed by the scheduler too: one in ten is a drop, and
                // runs of them would wait for a probe that never comes.
                .outageProbe(Duration.ZERO)
                .build();
        AtomicInteger maxObserved = new AtomicInteger();
        AtomicLong firstReleases = new AtomicLong();
        AtomicLong granted = new AtomicLong();
        ConcurrentLinkedQueue<Lease> handedOver = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < THREADS; t++) {
            // minLimit 2*THREADS: at most THREADS-1 leases sit in handedOver, so a thread
            // blocked in acquire() always has a slot coming.
            long seed = t;
            Thread thread = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                try {
                    start.await();
                    for (int i = 0; i < PAIRS_PER_THREAD; i++) {
                        Lease lease;
                        if (random.nextBoolean()) {
                            lease = limiter.tryAcquire().orElse(null);
                            if (lease == null) {
                                continue;
                            }
                        } else {
                            lease = limiter.acquire().get(30, TimeUnit.SECONDS);
                        }
                        granted.incrementAndGet();
                        int inflight = limiter.inflight();
                        maxObserved.accumulateAndGet(inflight, Math::max);
                        Outcome outcome = switch (random.nextInt(10)) {
                            case 0 -> Outcome.DROPPED;
                            case 1 -> Outcome.rateLimited(Duration.ZERO);
                            case 2 -> Outcome.IGNORED;
                            default -> Outcome.SUCCESS;
                        };
                        if (random.nextInt(20) == 0) {
                            handedOver.add(lease); // another thread releases it
                            Lease other = handedOver.poll();
                            if (other != null && other.release(outcome)) {
                                firstReleases.incrementAndGet();
                            }
                        } else if (lease.release(outcome)) {
                            firstReleases.incrementAndGet();
                        }
                        if (random.nextInt(5) == 0 && lease.release(Outcome.SUCCESS)) {
                            firstReleases.incrementAndGet(); // must never happen for a released lease
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "stress-" + t);
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(2));
            assertThat(thread.isAlive()).as("thread finished").isFalse();
        }
        Lease rest;
        while ((rest = handedOver.poll()) != null) {
            if (rest.release(Outcome.SUCCESS)) {
                firstReleases.incrementAndGet();
            }
        }
        assertThat(errors).isEmpty();
        assertThat(firstReleases.get()).isEqualTo(granted.get());
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
        assertThat(maxObserved.get()).isLessThanOrEqualTo(64);
        assertThat(limiter.limit()).isBetween(1, 64);
        assertThat(granted.get()).isGreaterThan(THREADS * (long) PAIRS_PER_THREAD / 2);
    }
}
