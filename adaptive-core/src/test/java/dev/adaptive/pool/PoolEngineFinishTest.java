package dev.adaptive.pool;

import dev.adaptive.AcquireTimeoutException;
import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.RateLimitedException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run finishes once every execution is over, not merely settled. An item settles when its
 * execution's result completes; an attempt that was starting on another thread when a stop
 * cancelled the execution (a retry granted its slot at that instant) gives its slot back just
 * after. A run that finished at the settle reported its result, and stopped a limiter of its
 * own, with that slot still counted in flight (seen once in PoolInvariantsTest under load). The
 * same holds for a slot the limiter was granting the run (its next acquisition, or an item's
 * retry) as a cancel withdrew it.
 */
class PoolEngineFinishTest {

    /**
     * An execution whose result is complete while it still holds a slot, until told to let go. The
     * record's accessors {@code result()} and {@code index()} are the interface's.
     */
    private record Lingering(CompletableFuture<Integer> result, long index, Lease lease, ExecutionHooks hooks)
            implements Execution<Integer> {

        Lingering(long index, Lease lease, ExecutionHooks hooks) {
            this(new CompletableFuture<>(), index, lease, hooks);
        }

        @Override
        public int attempts() {
            return 1;
        }

        @Override
        public boolean cancel(Throwable reason) {
            return result.completeExceptionally(reason);
        }
    }

    @Test
    void aRunFinishesOnlyOnceEveryExecutionHasGivenItsSlotBack() {
        VirtualTime time = new VirtualTime();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(4)).ticker(time).scheduler(time).build();
        List<Lingering> started = new ArrayList<>();
        AtomicReference<AdaptiveResult<Integer, Integer>> done = new AtomicReference<>();
        PoolEngine<Integer, Integer> run = PoolEngine.<Integer>builder(limiter, (index, task, lease, hooks) -> {
            Lingering e = new Lingering(index, lease, hooks);
            started.add(e);
            // The attempt answers and its result completes while its lease is still held.
            e.result.complete((int) index);
            return e;
        }).build(new IteratorSource<>(() -> List.of(1, 2, 3).iterator(), true, null),
                new CollectingSink<>(done::set), (item, ctx) -> CompletableFuture.completedFuture(item));
        run.start();
        time.runUntilIdle();

        assertThat(started).hasSize(3);
        assertThat(limiter.inflight()).isEqualTo(3);
        assertThat(done.get()).as("finished with three slots still held").isNull();

        for (Lingering e : started) {
            assertThat(done.get()).isNull();
            // The slot goes back, then the execution is over: the order ExecutionImpl keeps.
            e.lease.release(Outcome.IGNORED);
            e.hooks.finished();
        }
        time.runUntilIdle();
        assertThat(limiter.inflight()).isZero();
        assertThat(done.get()).isNotNull();
        assertThat(done.get().successes()).hasSize(3);
    }

    /**
     * Runs {@code items} on a limit of 1 where every attempt is answered by a 429 after 100 ms:
     * what then queues behind the pause (the run's next acquisition, an item's retry) is
     * granted a slot by the pause's end, on the scheduler's thread, and a cancel of the run
     * lands while the limiter grants the first of them (the slot counted, not yet handed
     * over), as another thread's cancel may: modelled by a ticker read inside that grant.
     * Nothing of the run waits for that thread, so the run ended with the slot still counted
     * and the granting thread gave it back just after.
     *
     * @return in flight when the run ended (its onFinish), after checking that the cancel
     *         landed in a grant, that the run ended cancelled, and that every slot is back
     */
    private static int inflightAtTheEndOfARunCancelledInAGrant(RetryPolicy retries, int maxPending, Integer... items) {
        VirtualTime time = new VirtualTime();
        TrapTicker inGrant = new TrapTicker(time, "drainPass");
        @SuppressWarnings("unchecked")
        PoolRun<AdaptiveResult<Integer, Integer>>[] run = new PoolRun[1];
        AtomicInteger inflightAtEnd = new AtomicInteger(-1);
        run[0] = ItemPool.of(items)
                .withAlgorithm(FixedLimit.of(1))
                .withRetryPolicy(retries)
                .withMaxPending(maxPending)
                .withTime(inGrant, time)
                .onFinish(result -> inflightAtEnd.set(run[0].limiter().inflight()))
                .process((item, ctx) -> {
                    CompletableFuture<Integer> f = new CompletableFuture<>();
                    time.schedule(() -> {
                        inGrant.arm(() -> run[0].cancel()); // another thread's cancel, at that instant
                        f.completeExceptionally(new RateLimitedException(Duration.ofSeconds(1)));
                    }, Duration.ofMillis(100));
                    return f;
                });
        time.runUntilIdle();

        assertThat(inGrant.sprung()).as("the cancel landed in a grant").isTrue();
        assertThat(run[0].isDone()).isTrue();
        assertThat(run[0].join().stats().stopCause()).get().extracting(PoolAbortedException::reason)
                .isEqualTo(PoolAbortedException.Reason.CANCELLED);
        assertThat(run[0].limiter().inflight()).isZero();
        assertThat(run[0].limiter().waiting()).isZero();
        return inflightAtEnd.get();
    }

    /** The slot the limiter was granting the run's next acquisition, queued first (the run's own, which the cancel withdraws). */
    @Test
    void aRunCancelledWhileTheLimiterGrantsItsNextItemASlotEndsOnlyOnceThatSlotIsBack() {
        assertThat(inflightAtTheEndOfARunCancelledInAGrant(RetryPolicy.none(), 0, 0, 1, 2))
                .as("in flight when the run ended").isZero();
    }

    /**
     * The slot the limiter was granting an item's retry after its 429: one item pending at most,
     * so the run queues no acquisition of its own meanwhile, and the retry's (its execution's,
     * withdrawn by the cancel of the execution) is the one granted.
     */
    @Test
    void aRunCancelledWhileTheLimiterGrantsARetryASlotEndsOnlyOnceThatSlotIsBack() {
        assertThat(inflightAtTheEndOfARunCancelledInAGrant(RetryPolicy.defaults(), 1, 0, 1))
                .as("in flight when the run ended").isZero();
    }
    /**
     * The run's next acquisition, on a limiter it shares, fails by its wait timeout while the
     * limiter grants it a slot (counted, not yet handed over): the other caller's slot is freed
     * and the timeout is due at one instant, the freed slot first, and the timeout runs inside
     * the grant. The failed acquisition stops the run as a refused slot does; the granting
     * thread gives the slot back just after, and the run ends only then.
     */
    @Test
    void aRunWhoseNextAcquisitionTimesOutWhileTheLimiterGrantsItEndsOnlyOnceThatSlotIsBack() {
        VirtualTime time = new VirtualTime();
        TrapTicker inGrant = new TrapTicker(time, "drainPass");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(inGrant).scheduler(time)
                .waitTimeout(Duration.ofSeconds(1)).build();
        Lease others = limiter.tryAcquire().orElseThrow(); // another caller of the shared limiter
        time.schedule(() -> others.release(Outcome.SUCCESS), Duration.ofSeconds(1)); // before the timeout's timer
        AtomicInteger inflightAtEnd = new AtomicInteger(-1);
        AtomicReference<AdaptiveResult<Integer, Integer>> done = new AtomicReference<>();
        PoolEngine<Integer, Integer> run = PoolEngine.<Integer>builder(limiter, AdaptiveExecutor.builder(limiter).build()::start)
                .build(Source.of(List.of(0, 1)), new CollectingSink<>(r -> {
                    inflightAtEnd.set(limiter.inflight());
                    done.set(r);
                }), (item, ctx) -> CompletableFuture.completedFuture(item));
        run.start();
        assertThat(limiter.waiting()).as("the run's acquisition waits for the slot").isEqualTo(1);
        inGrant.arm(time::runDue); // the timeout, due at the same instant, fires inside the grant

        time.runUntilIdle();

        assertThat(inGrant.sprung()).as("timed out inside the grant").isTrue();
        assertThat(done.get()).as("run completed").isNotNull();
        assertThat(done.get().stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED);
            assertThat(stop.getCause()).isInstanceOf(AcquireTimeoutException.class);
        });
        assertThat(done.get().errors()).hasSize(2);
        assertThat(inflightAtEnd).as("in flight when the run ended").hasValue(0);
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
    }
}
