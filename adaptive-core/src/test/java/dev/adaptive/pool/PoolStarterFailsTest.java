package dev.adaptive.pool;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run whose starter throws for an item (a face that closed, a scheduler that refuses the
 * item's task timeout): the item ends as an error without an attempt, its slot goes back and
 * the run completes (it used to wait for that item for ever).
 */
class PoolStarterFailsTest {

    /** Engine level: a face's starter that throws (anything) for one item. */
    @Test
    void aStarterThatThrowsDoesNotKeepTheRunFromEnding() {
        VirtualTime time = new VirtualTime();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(4)).ticker(time).scheduler(time).build();
        AtomicReference<AdaptiveResult<Integer, Integer>> done = new AtomicReference<>();
        PoolEngine<Integer, Integer> run = PoolEngine.<Integer>builder(limiter, (index, task, lease, hooks) -> {
            throw new IllegalStateException("face closed");
        }).build(new IteratorSource<>(() -> List.of(1, 2, 3).iterator(), true, null),
                new CollectingSink<>(done::set), (item, ctx) -> CompletableFuture.completedFuture(item));
        run.start();
        time.runUntilIdle();

        assertThat(done.get()).as("run completed").isNotNull();
    }

    /**
     * User level: ItemPool with a task timeout on a scheduler that rejects (a shut-down
     * executor). The first attempt's timer is rejected inside the starter; the run never ends
     * and join() would block forever.
     */
    @Test
    void anItemPoolWhoseSchedulerRejectsTheTaskTimeoutStillCompletes() {
        VirtualTime time = new VirtualTime();
        RejectingScheduler scheduler = new RejectingScheduler(time);
        scheduler.rejecting = true;
        PoolRun<AdaptiveResult<String, String>> run = ItemPool.of("a", "b")
                .withTime(time, scheduler)
                .withTaskTimeout(Duration.ofSeconds(1))
                .process((item, ctx) -> CompletableFuture.completedFuture(item));
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));

        assertThat(run.isDone()).as("run completed").isTrue();
        AdaptiveResult<String, String> r = run.toCompletableFuture().join();
        assertThat(r.successes().size() + r.errors().size()).isEqualTo((int) r.stats().accepted());
    }
}
