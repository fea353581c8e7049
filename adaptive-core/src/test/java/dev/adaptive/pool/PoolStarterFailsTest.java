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
        PoolRun<AdaptiveResult<String, String>> run = startWhileTheSchedulerRejects(
                pool -> pool.withTaskTimeout(Duration.ofSeconds(1)));
        completedWithEveryItem(run);
    }
    /**
     * A deadline whose timer the scheduler refuses when the run starts: process() threw the
     * scheduler's RejectedExecutionException after the run had begun, and a publisher's
     * subscribe() threw it after onSubscribe, so its subscriber never heard an end and stats()
     * never completed.
     */
    @Test
    void aDeadlineTheSchedulerRejectsEndsTheRunInsteadOfThrowingOrHanging() {
        PoolRun<AdaptiveResult<String, String>> run = startWhileTheSchedulerRejects(
                pool -> pool.withDeadline(Duration.ofSeconds(1)));
        AdaptiveResult<String, String> r = completedWithEveryItem(run);
        assertThat(r.stats().stopCause()).get().isInstanceOfSatisfying(PoolAbortedException.class,
                e -> assertThat(e.reason()).isEqualTo(PoolAbortedException.Reason.DEADLINE));
        assertThat(run.limiter().inflight()).isZero();
    }

    @Test
    void aPublisherWhoseDeadlineTheSchedulerRejectsStillCompletesItsSubscriber() {
        VirtualTime time = new VirtualTime();
        RejectingScheduler scheduler = new RejectingScheduler(time);
        scheduler.rejecting = true;
        PoolPublisher<String, String> publisher = ItemPool.of("a", "b")
                .withTime(time, scheduler)
                .withDeadline(Duration.ofSeconds(1))
                .publish((item, ctx) -> CompletableFuture.completedFuture(item));
        AtomicReference<String> end = new AtomicReference<>();
        publisher.subscribe(new java.util.concurrent.Flow.Subscriber<>() {
            @Override
            public void onSubscribe(java.util.concurrent.Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Settled<String, String> item) {
                // counted by the stats
            }

            @Override
            public void onError(Throwable t) {
                end.set("error " + t);
            }

            @Override
            public void onComplete() {
                end.set("complete");
            }
        });
        scheduler.rejecting = false;
        time.runUntilIdle();

        assertThat(end.get()).isEqualTo("complete");
        assertThat(publisher.stats()).isDone();
    }
    /**
     * Starts a run of two items with {@code option} on a scheduler that refuses every timer
     * while the run starts (a shut-down executor), then accepts again and lets ten minutes pass.
     */
    private static PoolRun<AdaptiveResult<String, String>> startWhileTheSchedulerRejects(
            java.util.function.UnaryOperator<ItemPool<String>> option) {
        VirtualTime time = new VirtualTime();
        RejectingScheduler scheduler = new RejectingScheduler(time);
        scheduler.rejecting = true;
        PoolRun<AdaptiveResult<String, String>> run = option.apply(ItemPool.of("a", "b").withTime(time, scheduler))
                .process((item, ctx) -> CompletableFuture.completedFuture(item));
        scheduler.rejecting = false;
        time.advance(Duration.ofMinutes(10));
        return run;
    }

    /** @return the run's result, once checked that it completed and settled every item it accepted */
    private static AdaptiveResult<String, String> completedWithEveryItem(PoolRun<AdaptiveResult<String, String>> run) {
        assertThat(run.isDone()).as("run completed").isTrue();
        AdaptiveResult<String, String> r = run.toCompletableFuture().join();
        assertThat(r.successes().size() + r.errors().size()).isEqualTo((int) r.stats().accepted());
        return r;
    }
}
