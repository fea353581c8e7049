package dev.adaptive.pool;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.pool.PoolSignalContractTest.CountingIterator;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static org.assertj.core.api.Assertions.assertThat;

/** Every kind of input, pulled lazily; synchronous tasks in constant stack depth. */
class PoolInputsTest {

    private final VirtualPoolHarness h = new VirtualPoolHarness();

    @Test
    void aLazyIteratorIsPulledOnlyWhenASlotIsFree() {
        CountingIterator input = new CountingIterator(20);
        AtomicInteger settled = new AtomicInteger();
        AtomicInteger maxAhead = new AtomicInteger();
        PoolRun<PoolStats> run = h.traced(ItemPool.of(input))
                .withAlgorithm(FixedLimit.of(3))
                .stream(h.scripted((item, attempt) -> {
                    maxAhead.accumulateAndGet(input.pulled() - settled.get(), Math::max);
                    return Reply.ok(100, item);
                }), PoolListener.of(r -> settled.incrementAndGet(), e -> settled.incrementAndGet()));
        assertThat(input.pulled()).isEqualTo(3);
        h.time.advance(Duration.ofMillis(100));
        assertThat(input.pulled()).isEqualTo(6);
        PoolStats s = h.finish(run);
        assertThat(input.pulled()).isEqualTo(20);
        // At most the limit in flight, plus the one item whose slot was just freed and handed
        // to the next item while its own result is being delivered.
        assertThat(maxAhead.get()).isLessThanOrEqualTo(3 + 1);
        assertThat(s.succeeded()).isEqualTo(20);
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(700));
    }

    @Test
    void aNonCollectionIterableIsLazyAndACollectionIsAcceptedWhole() {
        CountingIterator lazy = new CountingIterator(10);
        Iterable<Integer> iterable = () -> lazy;
        CompletableFuture<Void> stop = new CompletableFuture<>();
        h.time.schedule(() -> stop.complete(null), Duration.ofMillis(50));
        AdaptiveResult<Integer, Object> r = h.finish(h.traced(ItemPool.of(iterable))
                .withAlgorithm(FixedLimit.of(2)).withCancellation(stop)
                .process(h.scripted((item, attempt) -> Reply.ok(100, item))));
        assertThat(lazy.pulled()).isEqualTo(2);
        assertThat(r.errors()).hasSize(2);

        VirtualPoolHarness h2 = new VirtualPoolHarness();
        CompletableFuture<Void> stop2 = new CompletableFuture<>();
        h2.time.schedule(() -> stop2.complete(null), Duration.ofMillis(50));
        List<Integer> list = IntStream.range(0, 10).boxed().toList();
        AdaptiveResult<Integer, Object> all = h2.finish(ItemPool.of(list).withVirtualTime(h2.time)
                .withAlgorithm(FixedLimit.of(2)).withCancellation(stop2)
                .process(h2.scripted((item, attempt) -> Reply.ok(100, item))));
        assertThat(all.errors()).extracting(ItemError::item).containsExactlyInAnyOrderElementsOf(list);
        assertThat(all.stats().accepted()).isEqualTo(10);
    }

    @Test
    void aStreamIsPulledLazilyAndClosedWhenTheRunEnds() {
        AtomicBoolean closed = new AtomicBoolean();
        AtomicInteger pulled = new AtomicInteger();
        Stream<Integer> stream = Stream.iterate(0, i -> i + 1).limit(12).peek(i -> pulled.incrementAndGet())
                .onClose(() -> closed.set(true));
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(stream))
                .withAlgorithm(FixedLimit.of(4))
                .process(h.scripted((item, attempt) -> Reply.ok(10, item * 2)));
        assertThat(pulled.get()).isEqualTo(4);
        assertThat(closed).isFalse();
        AdaptiveResult<Integer, Object> r = h.finish(run);
        assertThat(closed).isTrue();
        assertThat(r.resultsInInputOrder()).containsExactly(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22);
    }

    @Test
    void aSynchronousPublisherGetsRequestOneOnlyWhenASlotIsFree() {
        TestPublishers.Range source = new TestPublishers.Range(30, h.time, Duration.ZERO);
        AtomicInteger settled = new AtomicInteger();
        source.settled = settled::get;
        PoolStats s = h.finish(h.traced(ItemPool.of(source))
                .withAlgorithm(FixedLimit.of(4))
                .stream(h.scripted((item, attempt) -> Reply.ok(10, item)),
                        PoolListener.of(r -> settled.incrementAndGet(), e -> settled.incrementAndGet())));
        assertThat(s.succeeded()).isEqualTo(30);
        assertThat(source.maxOutstanding.get()).isLessThanOrEqualTo(1);
        assertThat(source.maxAhead).isLessThanOrEqualTo(4 + 1); // as for iterators: the item in hand-over
        // one request per item (the publisher completes right after its last item)
        assertThat(source.requested.get()).isEqualTo(30);
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(80));
    }

    @Test
    void anAsynchronousPublisherIsWaitedForWithoutHoldingASlot() {
        TestPublishers.Range source = new TestPublishers.Range(10, h.time, Duration.ofMillis(5));
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(source))
                .withAlgorithm(FixedLimit.of(3))
                .process(h.scripted((item, attempt) -> Reply.ok(100, item)));
        // Nothing requested is in hand yet, so no slot is held while the publisher works.
        assertThat(run.limiter().inflight()).isZero();
        AdaptiveResult<Integer, Object> r = h.finish(run);
        assertThat(r.resultsInInputOrder()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(source.maxOutstanding.get()).isLessThanOrEqualTo(1);
        // Items arrive 5 ms apart: the TaskEnd RTTs are the task's 100 ms, not the publisher's wait.
        assertThat(h.eventsOf(dev.adaptive.trace.TraceEvent.TaskEnd.class))
                .allSatisfy(e -> assertThat(e.rttNanos()).isEqualTo(Duration.ofMillis(100).toNanos()));
    }

    @Test
    void aFailingInputEndsIntakeButLetsAcceptedItemsFinish() {
        Iterator<Integer> broken = new Iterator<>() {
            int next;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Integer next() {
                if (next == 3) {
                    throw new IllegalStateException("disk gone");
                }
                return next++;
            }
        };
        AdaptiveResult<Integer, Object> r = h.finish(h.traced(ItemPool.of(broken))
                .withAlgorithm(FixedLimit.of(5))
                .process(h.scripted((item, attempt) -> Reply.ok(10, item))));
        assertThat(r.results()).containsExactly(0, 1, 2);
        assertThat(r.stats().stopCause()).get().satisfies(p -> {
            assertThat(p.reason()).isEqualTo(PoolAbortedException.Reason.INPUT_FAILED);
            assertThat(p.getCause()).hasMessage("disk gone");
        });

        VirtualPoolHarness h2 = new VirtualPoolHarness();
        TestPublishers.Range failing = new TestPublishers.Range(10, h2.time, Duration.ofMillis(1), 4,
                new IllegalStateException("upstream died"));
        AdaptiveResult<Integer, Object> p = h2.finish(ItemPool.of(failing).withVirtualTime(h2.time)
                .withAlgorithm(FixedLimit.of(2))
                .process(h2.scripted((item, attempt) -> Reply.ok(10, item))));
        assertThat(p.results()).containsExactly(0, 1, 2, 3);
        assertThat(p.stats().stopCause()).get().extracting(Throwable::getCause).extracting(Throwable::getMessage)
                .isEqualTo("upstream died");
    }

    @Test
    void synchronousTasksRunInConstantStackDepth() throws Exception {
        int n = 200_000;
        AtomicReference<Object> outcome = new AtomicReference<>();
        // A small stack: recursion per item would overflow it within a few thousand items.
        Thread t = new Thread(null, () -> {
            try {
                PoolStats s = ItemPool.of(IntStream.range(0, n).iterator())
                        .withVirtualTime(new VirtualTime())
                        .withLimits(1, 1, 4)
                        .stream((Integer i, dev.adaptive.TaskContext ctx) -> CompletableFuture.completedFuture(i),
                                PoolListener.<Integer, Integer>of(r -> { }, e -> { }))
                        .join();
                outcome.set(s);
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "small-stack", 256 * 1024);
        t.start();
        t.join(120_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(outcome.get()).isInstanceOfSatisfying(PoolStats.class, s -> {
            assertThat(s.succeeded()).isEqualTo(n);
            assertThat(s.accepted()).isEqualTo(n);
        });
    }

    @Test
    void nullItemsFromAnIteratorAreItems() {
        List<String> withNull = new ArrayList<>();
        withNull.add("a");
        withNull.add(null);
        AdaptiveResult<String, Object> r = h.finish(h.traced(ItemPool.of(withNull))
                .process((item, ctx) -> CompletableFuture.completedFuture(String.valueOf(item))));
        assertThat(r.resultsInInputOrder()).containsExactly("a", "null");
    }
}
