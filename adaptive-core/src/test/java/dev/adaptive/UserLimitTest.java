package dev.adaptive;

import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Sample;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolRun;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Limit} written by a user may say anything: a limit of 0, -5 or far above its own
 * maximum, or an {@code update} that throws or returns nothing. The limiter keeps the limit in
 * [max(1, minLimit), max(that, maxLimit)] and survives a throwing fold with the state it had.
 */
class UserLimitTest {

    private final VirtualTime time = new VirtualTime();

    record State(int limit) implements LimitState {
        @Override
        public Map<String, Double> metrics() {
            return Map.of();
        }
    }

    /** A limit with the given bounds, starting at {@code initial}, folding with {@code fold}. */
    static Limit limit(int initial, int min, int max, BiFunction<LimitState, Sample, LimitState> fold) {
        return new Limit() {
            @Override
            public int initialLimit() {
                return initial;
            }

            @Override
            public int minLimit() {
                return min;
            }

            @Override
            public int maxLimit() {
                return max;
            }

            @Override
            public String name() {
                return "user";
            }

            @Override
            public LimitState initialState() {
                return new State(initial);
            }

            @Override
            public LimitState update(LimitState state, Sample sample) {
                return fold.apply(state, sample);
            }
        };
    }

    private Limiter limiter(Limit limit) {
        return Limiter.builder().limit(limit).time(time).build();
    }

    private static List<Lease> drainAll(Limiter limiter) {
        List<Lease> leases = new ArrayList<>();
        for (Optional<Lease> l = limiter.tryAcquire(); l.isPresent(); l = limiter.tryAcquire()) {
            leases.add(l.get());
            if (leases.size() > 10_000) {
                break;
            }
        }
        return leases;
    }

    @Test
    void aFoldThatThrowsAnErrorKeepsThePreviousStateAndFreesTheSlot() {
        State start = new State(3);
        Limiter limiter = limiter(limit(3, 1, 10, (s, sample) -> {
            throw new AssertionError("fold bug");
        }));
        Lease lease = limiter.tryAcquire().orElseThrow();
        assertThat(lease.release(Outcome.DROPPED)).isTrue();
        assertThat(lease.isReleased()).isTrue();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.limitState()).isEqualTo(start);
        assertThat(limiter.limit()).isEqualTo(3);
        assertThat(limiter.stats().limitFailures()).isEqualTo(1);
        assertThat(drainAll(limiter)).hasSize(3);
    }

    @Test
    void aFoldThatReturnsNullKeepsThePreviousState() {
        Limiter limiter = limiter(limit(2, 1, 10, (s, sample) -> null));
        Lease lease = limiter.tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.limitState()).isEqualTo(new State(2));
        assertThat(limiter.stats().limitFailures()).isEqualTo(1);
    }

    @Test
    void aFoldThatFailsOnlySometimesKeepsEveryGoodStep() {
        Limiter limiter = limiter(limit(1, 1, 10, (s, sample) -> {
            if (!sample.isSuccess()) {
                throw new StackOverflowError("deep fold");
            }
            return new State(s.limit() + 1);
        }));
        limiter.tryAcquire().orElseThrow().release();
        limiter.tryAcquire().orElseThrow().release(Outcome.DROPPED);
        limiter.tryAcquire().orElseThrow().release();
        assertThat(limiter.limit()).isEqualTo(3);
        assertThat(limiter.stats().limitFailures()).isEqualTo(1);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aStateWhoseLimitThrowsKeepsThePreviousLimit() {
        LimitState broken = new LimitState() {
            @Override
            public int limit() {
                throw new IllegalStateException("limit bug");
            }

            @Override
            public Map<String, Double> metrics() {
                throw new IllegalStateException("metrics bug");
            }
        };
        Limiter limiter = Limiter.builder().limit(limit(2, 1, 10, (s, sample) -> broken)).time(time)
                .traceListener(e -> { }).build();
        Lease lease = limiter.tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.limit()).isEqualTo(2);
        assertThat(drainAll(limiter)).hasSize(2);
    }

    @Test
    void limitsOfZeroOrBelowStillAdmitOne() {
        for (int bad : new int[] {0, -5, Integer.MIN_VALUE}) {
            Limiter limiter = limiter(limit(bad, 1, 10, (s, sample) -> s));
            assertThat(limiter.limit()).as("limit %d", bad).isEqualTo(1);
            List<Lease> leases = drainAll(limiter);
            assertThat(leases).as("limit %d", bad).hasSize(1);
            leases.forEach(Lease::release);
        }
        Limiter zeroMin = limiter(limit(0, 0, 0, (s, sample) -> new State(-1)));
        assertThat(drainAll(zeroMin)).hasSize(1);
    }

    @Test
    void aLimitAboveItsMaxGrantsOnlyTheMax() {
        Limiter limiter = limiter(limit(1000, 1, 4, (s, sample) -> new State(s.limit() * 2)));
        assertThat(limiter.limit()).isEqualTo(4);
        assertThat(limiter.localLimit()).isEqualTo(4);
        List<Lease> leases = drainAll(limiter);
        assertThat(leases).hasSize(4);
        leases.forEach(Lease::release);
        assertThat(drainAll(limiter)).hasSize(4);
        assertThat(limiter.stats().maxLimitReached()).isEqualTo(4);
    }

    @Test
    void aFoldThatLeavesTheBoundsIsClampedAndTraced() {
        List<Integer> changes = new ArrayList<>();
        Limiter limiter = Limiter.builder()
                .limit(limit(2, 2, 6, (s, sample) -> new State(sample.isSuccess() ? 50 : -50)))
                .time(time).limitChangeListener((from, to) -> changes.add(to)).build();
        limiter.tryAcquire().orElseThrow().release();
        assertThat(limiter.limit()).isEqualTo(6);
        limiter.tryAcquire().orElseThrow().release(Outcome.DROPPED);
        assertThat(limiter.limit()).isEqualTo(2);
        assertThat(changes).containsExactly(6, 2);
    }

    @Test
    void boundsThatContradictEachOtherKeepAtLeastTheMinimum() {
        Limiter limiter = limiter(limit(7, 5, 3, (s, sample) -> s));
        assertThat(limiter.limit()).isEqualTo(5);
    }

    @Test
    void anExecutorOnAThrowingLimitFinishesEveryTask() {
        Limiter limiter = limiter(limit(2, 1, 4, (s, sample) -> {
            throw new AssertionError("fold bug");
        }));
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(1).minDelay(Duration.ofMillis(5)).noJitter().build()).build();
        List<CompletableFuture<Integer>> results = IntStream.range(0, 20)
                .mapToObj(i -> executor.execute(ctx -> i % 3 == 0
                        ? CompletableFuture.<Integer>failedFuture(new IllegalStateException("down"))
                        : CompletableFuture.completedFuture(i)))
                .toList();
        time.runUntilIdle();
        assertThat(results).allMatch(CompletableFuture::isDone);
        assertThat(results.stream().filter(f -> !f.isCompletedExceptionally())).hasSize(13);
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
    }

    @Test
    void aPoolOnAThrowingLimitFinishesItsRun() {
        Limit broken = limit(3, 1, 8, (s, sample) -> {
            throw new AssertionError("fold bug");
        });
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(IntStream.range(0, 50).boxed().toList())
                .withAlgorithm(broken).withVirtualTime(time).withRetryPolicy(RetryPolicy.none())
                .process((item, ctx) -> {
                    if (item % 5 == 0) {
                        throw new IllegalStateException("sync failure " + item);
                    }
                    return CompletableFuture.completedFuture(item);
                });
        time.runUntilIdle();
        assertThat(run.isDone()).isTrue();
        AdaptiveResult<Integer, Integer> r = run.join();
        assertThat(r.successes()).hasSize(40);
        assertThat(r.errors()).hasSize(10);
        assertThat(run.limiter().inflight()).isZero();
    }
}
