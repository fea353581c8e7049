package dev.adaptive.pool;

import dev.adaptive.RateLimitedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.pool.PoolSignalContractTest.CountingIterator;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invariants 1 and 4 of docs/reliability.md on randomized workloads in virtual time: every accepted item ends
 * exactly once, and no attempt starts strictly inside an announced Retry-After window.
 */
class PoolInvariantsTest {

    @Test
    void everyAcceptedItemEndsOnceAndNothingStartsInsideAPause() {
        Property.forAll(300, Gen.longs(), PoolInvariantsTest::randomWorkload);
    }

    private static void randomWorkload(long seed) {
        Random rnd = new Random(seed);
        VirtualPoolHarness h = new VirtualPoolHarness();
        int n = 1 + rnd.nextInt(80);
        int retries = rnd.nextInt(4);
        int rateLimitRetries = rnd.nextInt(4);
        boolean timeouts = rnd.nextBoolean();
        boolean deadline = rnd.nextInt(4) == 0;
        boolean cancel = rnd.nextInt(4) == 0;
        boolean stops = rnd.nextInt(5) == 0;
        int inputKind = rnd.nextInt(3);

        ItemPool<Integer> pool = switch (inputKind) {
            case 0 -> ItemPool.of(IntStream.range(0, n).boxed().toArray(Integer[]::new));
            case 1 -> ItemPool.of(new CountingIterator(n));
            default -> ItemPool.of(new TestPublishers.Range(n, h.time, Duration.ofMillis(rnd.nextInt(3))));
        };
        h.traced(pool)
                .withAlgorithm(algorithm(rnd))
                .withRetryPolicy(RetryPolicy.builder().retries(retries).maxRateLimitRetries(rateLimitRetries)
                        .minDelay(Duration.ofMillis(50)).maxDelay(Duration.ofSeconds(2)).jitter(0.3)
                        .maxRetryAfter(Duration.ofMillis(800)).random(rnd::nextDouble).build());
        if (timeouts) {
            pool.withTaskTimeout(Duration.ofMillis(200));
        }
        if (deadline || (!timeouts && !cancel)) {
            // Without a timeout a hanging attempt would never end: a deadline bounds the run.
            pool.withDeadline(Duration.ofMillis(500 + rnd.nextInt(5000)));
        }
        if (cancel) {
            CompletableFuture<Void> stop = new CompletableFuture<>();
            h.time.schedule(() -> stop.complete(null), Duration.ofMillis(rnd.nextInt(3000)));
            pool.withCancellation(stop);
        }
        PoolRun<AdaptiveResult<Integer, Object>> run = pool.process(h.scripted((item, attempt) -> {
            int roll = rnd.nextInt(100);
            long latency = 1 + rnd.nextInt(150);
            if (roll < 60) {
                return Reply.ok(latency, item);
            } else if (roll < 72) {
                return Reply.fail(latency, new IllegalStateException("500"));
            } else if (roll < 86) {
                return Reply.fail(2, new RateLimitedException(Duration.ofMillis(rnd.nextInt(1500))));
            } else if (roll < 92) {
                return Reply.hang();
            } else if (roll < 94 && stops) {
                return Reply.fail(latency, new StopPoolException("stop"));
            }
            return Reply.ok(latency, item);
        }));
        AdaptiveResult<Integer, Object> r = h.finish(run);
        PoolStats s = r.stats();

        // Invariant 1: results ∪ errors = the accepted items, each exactly once.
        Set<Long> seen = new HashSet<>();
        r.successes().forEach(x -> assertThat(seen.add(x.index())).as("duplicate %s", x).isTrue());
        r.errors().forEach(x -> assertThat(seen.add(x.index())).as("duplicate %s", x).isTrue());
        assertThat(seen).containsExactlyInAnyOrderElementsOf(LongStream.range(0, s.accepted()).boxed().toList());
        r.successes().forEach(x -> assertThat(x.item()).isEqualTo((int) x.index()));
        r.errors().forEach(x -> assertThat(x.item()).isEqualTo((int) x.index()));
        if (inputKind == 0 || s.completed()) {
            assertThat(s.accepted()).isEqualTo(n);
        }
        assertThat(s.succeeded()).isEqualTo(r.successes().size());
        assertThat(s.failed()).isEqualTo(r.errors().size());
        long attempts = r.successes().stream().mapToLong(ItemResult::attempts).sum()
                + r.errors().stream().mapToLong(ItemError::attempts).sum();
        assertThat(s.totalAttempts()).isEqualTo(attempts);
        int maxAttempts = 1 + retries + rateLimitRetries;
        r.successes().forEach(x -> assertThat(x.attempts()).isBetween(1, maxAttempts));
        r.errors().forEach(x -> assertThat(x.attempts()).isBetween(0, maxAttempts));
        r.errors().stream().filter(x -> x.attempts() == 0)
                .forEach(x -> assertThat(x.error()).isInstanceOf(PoolAbortedException.class));
        assertThat(h.eventsOf(TraceEvent.Retry.class)).noneMatch(e -> e.cause() instanceof StopPoolException);

        // Invariant 4: no attempt starts strictly inside an announced Retry-After window.
        List<TraceEvent.RatePause> pauses = h.eventsOf(TraceEvent.RatePause.class);
        for (TraceEvent.TaskStart start : h.eventsOf(TraceEvent.TaskStart.class)) {
            for (TraceEvent.RatePause p : pauses) {
                assertThat(start.timeNanos() > p.timeNanos() && start.timeNanos() < p.untilNanos())
                        .as("attempt %s started inside pause %s", start, p).isFalse();
            }
        }
        pauses.forEach(p -> assertThat(p.retryAfter()).isLessThanOrEqualTo(Duration.ofMillis(800)));
        Property.collect("paused", !pauses.isEmpty());
        Property.collect("ended by", s.stopCause().map(PoolAbortedException::reason).map(Enum::name)
                .orElse("input end"));
    }

    /**
     * Invariant 1 with real threads: attempts answered from four threads at once, with errors,
     * 429s and a cancellation arriving at a random moment, so that settling, feeding and the
     * stop sweep race each other. Bounded: five rounds of a few hundred items, millisecond waits.
     */
    @Test
    void everyAcceptedItemEndsOnceUnderRealConcurrency() throws Exception {
        ScheduledExecutorService completers = Executors.newScheduledThreadPool(4);
        try {
            for (int round = 0; round < 5; round++) {
                Random seeds = new Random(round);
                int n = 400;
                CompletableFuture<Void> stop = new CompletableFuture<>();
                if (round % 2 == 1) {
                    completers.schedule(() -> stop.complete(null), 20 + seeds.nextInt(60), TimeUnit.MILLISECONDS);
                }
                PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(new CountingIterator(n))
                        .withLimits(4, 1, 16)
                        .withRetryPolicy(RetryPolicy.builder().retries(2).minDelay(Duration.ofMillis(1))
                                .maxDelay(Duration.ofMillis(5)).maxRetryAfter(Duration.ofMillis(5)).build())
                        .withCancellation(stop)
                        .process((item, ctx) -> {
                            CompletableFuture<Integer> f = new CompletableFuture<>();
                            int roll = ThreadLocalRandom.current().nextInt(100);
                            completers.schedule(() -> {
                                if (roll < 8) {
                                    f.completeExceptionally(new IllegalStateException("500"));
                                } else if (roll < 12) {
                                    f.completeExceptionally(new RateLimitedException(Duration.ofMillis(2)));
                                } else {
                                    f.complete(item);
                                }
                            }, roll % 3, TimeUnit.MILLISECONDS);
                            return f;
                        });
                AdaptiveResult<Integer, Integer> r = run.toCompletableFuture().get(60, TimeUnit.SECONDS);
                Set<Long> seen = new HashSet<>();
                r.successes().forEach(x -> assertThat(seen.add(x.index())).isTrue());
                r.errors().forEach(x -> assertThat(seen.add(x.index())).isTrue());
                assertThat(seen).hasSize((int) r.stats().accepted());
                assertThat(seen).allMatch(i -> i < r.stats().accepted());
                if (r.stats().completed()) {
                    assertThat(r.stats().accepted()).isEqualTo(n);
                }
                // At once: a run ends only after every slot it took is back, also one the
                // limiter was granting it, or an attempt was starting with, as a cancel landed.
                assertThat(run.limiter().inflight()).as("in flight at the run's end").isZero();
            }
        } finally {
            completers.shutdownNow();
        }
    }

    private static Limit algorithm(Random rnd) {
        int max = 1 + rnd.nextInt(8);
        return switch (rnd.nextInt(4)) {
            case 0 -> FixedLimit.of(max);
            case 1 -> Vegas.builder().initialLimit(1).minLimit(1).maxLimit(max).build();
            case 2 -> Aimd.builder().initialLimit(1).minLimit(1).maxLimit(max).build();
            default -> Gradient2.builder().initialLimit(1).minLimit(1).maxLimit(max).build();
        };
    }
}
