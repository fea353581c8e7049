package dev.adaptive.pool;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.StopPoolException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run whose {@code later} executor refuses a task (an event-loop context that closed, a
 * scheduler that was shut down): the feeder's yield and a task's stop, deferred by one turn, go
 * through it. A refused yield stops the run as a refused slot does, so that every accepted item
 * still ends exactly once; a refused deferral sweeps at once.
 */
class PoolLaterRefusesTest {

    private final VirtualTime time = new VirtualTime();

    /** Each item answers its own value 100 ms after it starts. */
    private CompletableFuture<Integer> slow(Integer item) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        time.schedule(() -> f.complete(item), Duration.ofMillis(100));
        return f;
    }

    @Test
    void aRefusedYieldStopsTheRunAndEndsEveryItemOfAnArrayOnce() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(4)).ticker(time).scheduler(time).build();
        Executor refusing = task -> {
            throw new RejectedExecutionException("context closed");
        };
        AtomicReference<AdaptiveResult<Integer, Integer>> done = new AtomicReference<>();
        List<Integer> items = IntStream.range(0, 10).boxed().toList();
        PoolEngine<Integer, Integer> run = PoolEngine.<Integer>builder(limiter, AdaptiveExecutor.builder(limiter).build()::start)
                .executor(Runnable::run, refusing)
                .yieldEvery(2)
                .build(Source.of(items), new CollectingSink<>(done::set), (item, ctx) -> slow(item));
        run.start();
        time.runUntilIdle();

        AdaptiveResult<Integer, Integer> r = done.get();
        assertThat(r).as("run completed").isNotNull();
        assertThat(r.stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED);
            assertThat(stop.getCause()).isInstanceOf(RejectedExecutionException.class);
        });
        // Every item of the array is accepted and ends once: the two started before the yield
        // are cancelled (one attempt each), the eight never pulled end with no attempt.
        assertThat(r.stats().accepted()).isEqualTo(10);
        Set<Long> seen = new HashSet<>();
        r.successes().forEach(s -> assertThat(seen.add(s.index())).isTrue());
        r.errors().forEach(e -> assertThat(seen.add(e.index())).isTrue());
        assertThat(seen).hasSize(10);
        assertThat(r.errors()).hasSize(10).allSatisfy(e -> assertThat(e.error())
                .isInstanceOfSatisfying(PoolAbortedException.class,
                        p -> assertThat(p.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED)));
        assertThat(r.errors()).filteredOn(e -> e.index() < 2).extracting(ItemError::attempts).containsOnly(1);
        assertThat(r.errors()).filteredOn(e -> e.index() >= 2).extracting(ItemError::attempts).containsOnly(0);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * ItemPool defers a task's stop by one turn of its scheduler; a scheduler that refuses it
     * must not leave the other running attempts uncancelled (the run then waited an hour for
     * the slow one instead of stopping).
     */
    @Test
    void aStopWhoseDeferralTheSchedulerRefusesStillCancelsTheRunningAttempts() {
        RejectingScheduler scheduler = new RejectingScheduler(time);
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(0, 1)
                .withAlgorithm(FixedLimit.of(2))
                .withTime(time, scheduler)
                .process((item, ctx) -> {
                    CompletableFuture<Integer> f = new CompletableFuture<>();
                    if (item == 0) {
                        time.schedule(() -> {
                            scheduler.rejecting = true; // shut down as the stop comes
                            f.completeExceptionally(new StopPoolException("stop"));
                        }, Duration.ofMillis(100));
                    } else {
                        time.schedule(() -> f.complete(item), Duration.ofHours(1));
                    }
                    return f;
                });
        time.advance(Duration.ofSeconds(1));

        assertThat(run.isDone()).as("stopped within a second").isTrue();
        AdaptiveResult<Integer, Integer> r = run.join();
        assertThat(r.stats().stopCause()).get().extracting(PoolAbortedException::reason)
                .isEqualTo(PoolAbortedException.Reason.STOPPED);
        assertThat(r.errors()).hasSize(2);
        assertThat(r.errors()).filteredOn(e -> e.index() == 1).singleElement().satisfies(e -> {
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOf(PoolAbortedException.class);
        });
        assertThat(run.limiter().inflight()).isZero();
    }
    /**
     * A face whose run lives on a context that closes: the run's executor and {@code later} both
     * refuse once the first item's {@link StopPoolException} comes. The stop's sweep, refused by
     * {@code later} and then by the executor, runs on the calling thread, and so do the passes
     * that end the run (before: the sweep was lost, the slow attempt was never cancelled, and
     * the delivery loop, its pass refused, stayed claimed: the run never completed).
     */
    @Test
    void aStopWhoseSweepTheRunsExecutorRefusesTooStillCancelsTheRunningAttemptsAndEnds() {
        AtomicBoolean shutDown = new AtomicBoolean();
        Executor executor = task -> {
            if (shutDown.get()) {
                throw new RejectedExecutionException("context closed");
            }
            task.run();
        };
        Executor later = task -> {
            if (shutDown.get()) {
                throw new RejectedExecutionException("context closed");
            }
            time.schedule(task, Duration.ZERO);
        };
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(2)).ticker(time).scheduler(time).build();
        AtomicReference<AdaptiveResult<Integer, Integer>> done = new AtomicReference<>();
        PoolEngine<Integer, Integer> run = PoolEngine.<Integer>builder(limiter, AdaptiveExecutor.builder(limiter).build()::start)
                .executor(executor, later)
                .build(Source.of(List.of(0, 1)), new CollectingSink<>(done::set), (item, ctx) -> {
                    CompletableFuture<Integer> f = new CompletableFuture<>();
                    if (item == 0) {
                        time.schedule(() -> {
                            shutDown.set(true);
                            f.completeExceptionally(new StopPoolException("stop"));
                        }, Duration.ofMillis(100));
                    } else {
                        time.schedule(() -> f.complete(item), Duration.ofHours(1));
                    }
                    return f;
                });
        run.start();
        time.advance(Duration.ofSeconds(1));

        AdaptiveResult<Integer, Integer> r = done.get();
        assertThat(r).as("run completed within a second").isNotNull();
        assertThat(r.stats().stopCause()).get().extracting(PoolAbortedException::reason)
                .isEqualTo(PoolAbortedException.Reason.STOPPED);
        assertThat(r.errors()).hasSize(2);
        assertThat(r.errors()).filteredOn(e -> e.index() == 1).singleElement().satisfies(e -> {
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOf(PoolAbortedException.class);
        });
        assertThat(limiter.inflight()).isZero();
        assertThat(time.uncaught()).isEmpty();
    }
}
