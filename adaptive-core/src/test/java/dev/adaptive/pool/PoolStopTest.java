package dev.adaptive.pool;

import dev.adaptive.TaskContext;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.pool.PoolSignalContractTest.CountingIterator;
import dev.adaptive.retry.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static dev.adaptive.pool.VirtualPoolHarness.ms;
import static org.assertj.core.api.Assertions.assertThat;

/** Pool-level hard stops: deadline, cancellation stage, cancellation signal, PoolRun.cancel(). */
class PoolStopTest {

    private final VirtualPoolHarness h = new VirtualPoolHarness();

    private static Integer[] items(int n) {
        return IntStream.range(0, n).boxed().toArray(Integer[]::new);
    }

    @Test
    void deadlineCancelsInFlightAndEndsEveryAcceptedItemAsAnError() {
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(items(10)))
                .withAlgorithm(FixedLimit.of(2))
                .withDeadline(Duration.ofMillis(250))
                .process(h.scripted((item, attempt) -> Reply.ok(100, item)));
        AdaptiveResult<Integer, Object> r = h.finish(run);

        assertThat(r.results()).containsExactly(0, 1, 2, 3);
        assertThat(r.errors()).hasSize(6).allSatisfy(e -> assertThat(e.error())
                .isInstanceOfSatisfying(PoolAbortedException.class,
                        p -> assertThat(p.reason()).isEqualTo(PoolAbortedException.Reason.DEADLINE)));
        // 4 and 5 were running (started at 200) and were cancelled; 6..9 never started.
        assertThat(r.errors()).filteredOn(e -> e.item() < 6).extracting(ItemError::attempts).containsOnly(1);
        assertThat(r.errors()).filteredOn(e -> e.item() >= 6).extracting(ItemError::attempts).containsOnly(0);
        assertThat(h.contexts).filteredOn(c -> c.index() >= 4).hasSize(2)
                .allSatisfy(c -> assertThat(c.cancellation().reason()).isInstanceOf(PoolAbortedException.class));
        assertThat(r.stats().elapsed()).isEqualTo(Duration.ofMillis(250));
        assertThat(r.stats().stopCause()).get().extracting(PoolAbortedException::reason)
                .isEqualTo(PoolAbortedException.Reason.DEADLINE);
        assertThat(r.stats().accepted()).isEqualTo(10);
        assertThat(h.time.elapsed()).as("no task left behind by the run").isLessThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void deadlineThatIsNotReachedLeavesNoTimerBehind() {
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(items(2)))
                .withDeadline(Duration.ofHours(1))
                .process(h.scripted((item, attempt) -> Reply.ok(100, item)));
        AdaptiveResult<Integer, Object> r = h.finish(run);
        assertThat(r.stats().completed()).isTrue();
        assertThat(h.time.elapsed()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void cancellationStageAbortsTheRunAndLeavesALazyInputUnpulled() {
        CountingIterator input = new CountingIterator(10);
        CompletableFuture<String> stop = new CompletableFuture<>();
        h.time.schedule(() -> stop.complete("user pressed stop"), Duration.ofMillis(150));
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(input))
                .withAlgorithm(FixedLimit.of(2))
                .withCancellation(stop)
                .process(h.scripted((item, attempt) -> Reply.ok(100, item)));
        AdaptiveResult<Integer, Object> r = h.finish(run);

        assertThat(input.pulled()).isEqualTo(4);
        assertThat(r.stats().accepted()).isEqualTo(4);
        assertThat(r.results()).containsExactly(0, 1);
        assertThat(r.errors()).extracting(ItemError::item).containsExactlyInAnyOrder(2, 3);
        assertThat(r.errors()).extracting(ItemError::attempts).containsOnly(1);
        assertThat(r.stats().stopCause()).get().satisfies(p -> {
            assertThat(p.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED);
            assertThat(p.getCause()).isNull();
        });
        assertThat(r.stats().elapsed()).isEqualTo(Duration.ofMillis(150));
    }

    @Test
    void failedCancellationStageBecomesTheCause() {
        CompletableFuture<Void> stop = new CompletableFuture<>();
        IllegalStateException why = new IllegalStateException("shutdown");
        h.time.schedule(() -> stop.completeExceptionally(why), Duration.ofMillis(50));
        AdaptiveResult<Integer, Object> r = h.finish(h.traced(ItemPool.of(items(3)))
                .withCancellation(stop)
                .process(h.scripted((item, attempt) -> Reply.hang())));
        assertThat(r.errors()).hasSize(3);
        assertThat(r.stats().stopCause()).get().extracting(Throwable::getCause).isSameAs(why);
    }

    @Test
    void alreadyCompletedCancellationEndsEveryItemOfAnArrayWithoutStartingOne() {
        AdaptiveResult<Integer, Object> r = h.finish(h.traced(ItemPool.of(items(5)))
                .withCancellation(CompletableFuture.completedFuture(null))
                .process(h.scripted((item, attempt) -> Reply.ok(1, item))));
        assertThat(h.starts).isEmpty();
        assertThat(r.errors()).extracting(ItemError::item).containsExactly(0, 1, 2, 3, 4);
        assertThat(r.errors()).extracting(ItemError::attempts).containsOnly(0);
    }

    @Test
    void aPublisherIsNotEvenSubscribedWhenTheRunIsCancelledBeforeItStarts() {
        AtomicInteger subscribes = new AtomicInteger();
        java.util.concurrent.Flow.Publisher<Integer> publisher = s -> subscribes.incrementAndGet();
        AdaptiveResult<Integer, Object> r = h.finish(h.traced(ItemPool.of(publisher))
                .withCancellation(CompletableFuture.completedFuture(null))
                .process(h.scripted((item, attempt) -> Reply.ok(1, item))));
        assertThat(subscribes.get()).isZero();
        assertThat(r.stats().accepted()).isZero();
        assertThat(r.stats().stopCause()).isPresent();
    }

    @Test
    void poolRunCancelStopsRetriesWaitingForTheirBackoff() {
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(items(1)))
                .withRetryPolicy(RetryPolicy.builder().retries(5).constant().minDelay(Duration.ofSeconds(10)).noJitter().build())
                .process(h.scripted((item, attempt) -> Reply.fail(10, new IllegalStateException("down"))));
        h.time.advance(Duration.ofSeconds(1));
        assertThat(run.isDone()).isFalse();
        assertThat(run.cancel(new IllegalStateException("bored"))).isTrue();
        assertThat(run.cancel()).isFalse();
        AdaptiveResult<Integer, Object> r = h.finish(run);

        assertThat(r.errors()).singleElement().satisfies(e -> {
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOf(PoolAbortedException.class).hasRootCauseMessage("bored");
        });
        assertThat(h.starts).hasSize(1);
        assertThat(r.stats().elapsed()).isEqualTo(Duration.ofSeconds(1));
        assertThat(run.cancel()).as("cancel after the end").isFalse();
    }

    @Test
    void aTasksCancellationSignalCancelsANestedPool() {
        List<PoolStats> inner = new CopyOnWriteArrayList<>();
        List<TaskContext> innerContexts = new CopyOnWriteArrayList<>();
        PoolRun<AdaptiveResult<String, Object>> outer = h.traced(ItemPool.of("batch"))
                .withTaskTimeout(Duration.ofMillis(300))
                .withRetryPolicy(RetryPolicy.none())
                .process((batch, ctx) -> ItemPool.of(items(4))
                        .withVirtualTime(h.time)
                        .withAlgorithm(FixedLimit.of(1))
                        .withCancellation(ctx.cancellation())
                        .stream((Integer i, TaskContext c) -> {
                            innerContexts.add(c);
                            CompletableFuture<Integer> f = new CompletableFuture<>();
                            h.time.schedule(() -> f.complete(i), Duration.ofMillis(100));
                            return f;
                        }, PoolListener.<Integer, Integer>of(x -> { }, x -> { }))
                        .toCompletableFuture()
                        .thenApply(stats -> {
                            inner.add(stats);
                            return (Object) stats;
                        }));
        AdaptiveResult<String, Object> r = h.finish(outer);

        assertThat(r.errors()).singleElement().extracting(ItemError::error)
                .isInstanceOf(dev.adaptive.TaskTimeoutException.class);
        assertThat(inner).singleElement().satisfies(s -> {
            // 0 and 1 answered at 100 and 200; the outer timeout at 300 (armed before 2's
            // answer was scheduled) cancelled 2 while running, and 3 was never started.
            assertThat(s.succeeded()).isEqualTo(2);
            assertThat(s.failed()).isEqualTo(2);
            assertThat(s.stopCause()).get().extracting(PoolAbortedException::reason)
                    .isEqualTo(PoolAbortedException.Reason.CANCELLED);
            assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(300));
        });
        assertThat(innerContexts).hasSize(3);
        assertThat(innerContexts.get(2).cancellation().reason()).isInstanceOf(PoolAbortedException.class);
    }

    @Test
    void pendingItemsEndExactlyOnceWhenEverythingStopsAtOnce() {
        List<Integer> seen = new ArrayList<>();
        PoolRun<PoolStats> run = h.traced(ItemPool.of(items(50)))
                .withAlgorithm(FixedLimit.of(5))
                .withDeadline(Duration.ofMillis(100))
                .stream(h.scripted((item, attempt) -> attempt == 1
                                ? Reply.fail(30, new IllegalStateException("x")) : Reply.ok(30, item)),
                        PoolListener.of(res -> seen.add(res.item()), err -> seen.add(err.item())));
        PoolStats s = h.finish(run);
        assertThat(seen).hasSize(50).doesNotHaveDuplicates();
        assertThat(s.accepted()).isEqualTo(50);
        assertThat(s.succeeded() + s.failed()).isEqualTo(50);
        assertThat(ms(100)).isEqualTo(s.elapsed().toNanos());
    }
}
