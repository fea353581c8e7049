package dev.adaptive.pool;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run finishes once every execution is over, not merely settled. An item settles when its
 * execution's result completes; an attempt that was starting on another thread when a stop
 * cancelled the execution (a retry granted its slot at that instant) gives its slot back just
 * after. A run that finished at the settle reported its result, and stopped a limiter of its
 * own, with that slot still counted in flight (seen once in PoolInvariantsTest under load).
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
}
