package dev.adaptive.pool;

import dev.adaptive.TaskContext;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryPolicy;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Collecting, listener and publisher outputs; onFinish; callbacks that throw. */
class PoolOutputsTest {

    private final VirtualPoolHarness h = new VirtualPoolHarness();

    private static Integer[] items(int n) {
        return IntStream.range(0, n).boxed().toArray(Integer[]::new);
    }

    @Test
    void resultsAreInCompletionOrderAndOnFinishRunsOnceBeforeTheOutcome() {
        List<AdaptiveResult<Integer, ?>> finished = new ArrayList<>();
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(3, 1, 2))
                .withAlgorithm(FixedLimit.of(3))
                .onFinish(finished::add)
                .process(h.scripted((item, attempt) -> Reply.ok(item * 10L, "v" + item)));
        run.toCompletableFuture().thenRun(() -> assertThat(finished).hasSize(1));
        AdaptiveResult<Integer, Object> r = h.finish(run);
        assertThat(r.results()).containsExactly("v1", "v2", "v3");
        assertThat(r.resultsInInputOrder()).containsExactly("v3", "v1", "v2");
        assertThat(r.successes()).extracting(ItemResult::index).containsExactly(1L, 2L, 0L);
        assertThat(finished).singleElement().isSameAs(r);
    }

    @Test
    void aThrowingOnFinishDoesNotStopTheOutcome() {
        AtomicReference<Throwable> reported = new AtomicReference<>();
        Thread.UncaughtExceptionHandler before = Thread.currentThread().getUncaughtExceptionHandler();
        Thread.currentThread().setUncaughtExceptionHandler((t, e) -> reported.set(e));
        try {
            PoolRun<AdaptiveResult<Integer, Object>> run = ItemPool.of(1).withVirtualTime(h.time)
                    .onFinish(r -> {
                        throw new IllegalStateException("logger down");
                    })
                    .process((item, ctx) -> CompletableFuture.completedFuture(item));
            assertThat(h.finish(run).results()).containsExactly(1);
            assertThat(reported.get()).hasMessage("logger down");
        } finally {
            Thread.currentThread().setUncaughtExceptionHandler(before);
        }
    }

    @Test
    void aThrowingListenerIsCountedAndEveryItemStillSettles() {
        AtomicInteger calls = new AtomicInteger();
        PoolStats s = h.finish(h.traced(ItemPool.of(items(10)))
                .withAlgorithm(FixedLimit.of(3))
                .stream(h.scripted((item, attempt) -> item % 2 == 0
                                ? Reply.ok(10, item) : Reply.fail(10, new IllegalArgumentException("odd"))),
                        PoolListener.of(r -> {
                            calls.incrementAndGet();
                            throw new IllegalStateException("listener bug");
                        }, e -> calls.incrementAndGet())));
        assertThat(calls.get()).isEqualTo(10);
        assertThat(s.callbackFailures()).isEqualTo(5);
        assertThat(s.succeeded()).isEqualTo(5);
        assertThat(s.failed()).isEqualTo(5);
    }

    /** A run's stats, and what its subscriber, whose onSubscribe threw, was told. */
    private record ThrowingSubscriberRun(PoolStats stats, Collector subscriber) {
    }

    /**
     * Publishes three items to a subscriber whose onSubscribe first does {@code first} with its
     * subscription and then throws {@code bug}.
     */
    private ThrowingSubscriberRun publishToASubscriberThatThrowsInOnSubscribe(java.util.function.Consumer<Flow.Subscription> first,
                                                                             RuntimeException bug) {
        PoolPublisher<Integer, Object> publisher = ItemPool.of(1, 2, 3).withVirtualTime(h.time)
                .publish((item, ctx) -> CompletableFuture.completedFuture(item));
        Collector subscriber = new Collector() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                first.accept(s);
                throw bug;
            }
        };
        publisher.subscribe(subscriber);
        h.time.runUntilIdle();
        return new ThrowingSubscriberRun(publisher.stats().join(), subscriber);
    }

    @Test
    void aSubscriberWhoseOnSubscribeThrowsIsCountedAndItsRunSaysWhy() {
        IllegalStateException bug = new IllegalStateException("subscriber bug");
        ThrowingSubscriberRun run = publishToASubscriberThatThrowsInOnSubscribe(s -> { }, bug);

        // The class's javadoc: a subscriber method that throws is counted in callbackFailures.
        assertThat(run.stats().callbackFailures()).isEqualTo(1);
        assertThat(run.stats().stopCause()).get().satisfies(e -> assertThat(e).hasCause(bug));
        assertThat(run.stats().accepted()).isEqualTo(run.stats().failed());
        assertThat(run.subscriber().items).isEmpty();
    }

    @Test
    void aSubscriberWhoseOnSubscribeThrowsGetsNoSignalEvenAfterABrokenRequest() {
        IllegalStateException bug = new IllegalStateException("subscriber bug");
        ThrowingSubscriberRun run = publishToASubscriberThatThrowsInOnSubscribe(s -> s.request(0), bug);

        assertThat(run.stats().callbackFailures()).isEqualTo(1);
        assertThat(run.stats().stopCause()).get().satisfies(e -> assertThat(e).hasCause(bug));
        // The class's javadoc: an onSubscribe that throws cancels the run, and nothing is
        // published to that subscriber; no terminal signal either.
        assertThat(run.subscriber().error).hasValue(null);
        assertThat(run.subscriber().completions).hasValue(0);
        assertThat(run.subscriber().items).isEmpty();
    }

    @Test
    void streamingOnFinishGetsStatsOnly() {
        AtomicReference<AdaptiveResult<Integer, ?>> seen = new AtomicReference<>();
        PoolStats s = h.finish(h.traced(ItemPool.of(items(4)))
                .onFinish(seen::set)
                .stream(h.scripted((item, attempt) -> Reply.ok(1, item)), PoolListener.of(r -> { }, e -> { })));
        assertThat(seen.get().successes()).isEmpty();
        assertThat(seen.get().stats()).isSameAs(s);
    }

    @Test
    void listenerCallsAreNeverConcurrentWhenTasksCompleteOnManyThreads() throws Exception {
        ExecutorService completers = Executors.newFixedThreadPool(4);
        try {
            AtomicBoolean inside = new AtomicBoolean();
            AtomicInteger overlaps = new AtomicInteger();
            List<Integer> seen = new ArrayList<>(); // unsynchronized on purpose: calls are serialized
            PoolRun<PoolStats> run = ItemPool.of(IntStream.range(0, 3000).iterator())
                    .withAlgorithm(FixedLimit.of(16))
                    .stream((Integer i, TaskContext ctx) -> CompletableFuture.supplyAsync(() -> i, completers),
                            PoolListener.of(r -> {
                                if (!inside.compareAndSet(false, true)) {
                                    overlaps.incrementAndGet();
                                }
                                seen.add(r.item());
                                inside.set(false);
                            }, e -> overlaps.addAndGet(1000)));
            PoolStats s = run.toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(overlaps.get()).isZero();
            assertThat(s.succeeded()).isEqualTo(3000);
            assertThat(seen).hasSize(3000).doesNotHaveDuplicates();
            assertThat(run.limiter().inflight()).isZero();
        } finally {
            completers.shutdownNow();
        }
    }

    /** A subscriber that requests {@code batch} items whenever it has handled the last batch. */
    private static class Collector implements Flow.Subscriber<Settled<Integer, Object>> {
        final List<Settled<Integer, Object>> items = new CopyOnWriteArrayList<>();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        volatile Flow.Subscription subscription;
        volatile long requested;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
        }

        void request(long n) {
            requested = requested + n < 0 ? Long.MAX_VALUE : requested + n;
            subscription.request(n);
        }

        @Override
        public void onNext(Settled<Integer, Object> item) {
            assertThat((long) items.size()).isLessThan(requested);
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {
            error.set(t);
        }

        @Override
        public void onComplete() {
            completions.incrementAndGet();
        }
    }

    @Test
    void publisherOutputRespectsDemandAndBoundsIntake() {
        PoolPublisher<Integer, Object> publisher = h.traced(ItemPool.of(IntStream.range(0, 40).iterator()))
                .withAlgorithm(FixedLimit.of(4))
                .withRetryPolicy(RetryPolicy.none())
                .publish(h.scripted((item, attempt) -> item == 7
                        ? Reply.fail(10, new IllegalArgumentException("bad item")) : Reply.ok(10, item)));
        Collector c = new Collector();
        publisher.subscribe(c);
        h.time.runUntilIdle();
        // No demand yet: the pool processed at most maxPending (twice the limit) items and waits.
        assertThat(c.items).isEmpty();
        assertThat(h.starts).hasSize(8);
        c.request(3);
        assertThat(c.items).hasSize(3);
        h.time.runUntilIdle();
        assertThat(h.starts).hasSize(11);
        c.request(Long.MAX_VALUE);
        h.time.runUntilIdle();
        assertThat(c.items).hasSize(40);
        assertThat(c.completions.get()).isEqualTo(1);
        assertThat(c.items).filteredOn(s -> s instanceof Settled.Failed<Integer, Object>).singleElement()
                .satisfies(s -> {
                    assertThat(s.index()).isEqualTo(7);
                    assertThat(((Settled.Failed<Integer, Object>) s).error().error()).hasMessage("bad item");
                });
        assertThat(c.items).extracting(Settled::index).doesNotHaveDuplicates();
        PoolStats stats = publisher.stats().join();
        assertThat(stats.accepted()).isEqualTo(40);
        assertThat(stats.succeeded()).isEqualTo(39);
    }

    @Test
    void subscriberCancelCancelsTheRunAndNothingFollows() {
        PoolPublisher<Integer, Object> publisher = h.traced(ItemPool.of(IntStream.range(0, 40).iterator()))
                .withAlgorithm(FixedLimit.of(2))
                .publish(h.scripted((item, attempt) -> Reply.ok(100, item)));
        Collector c = new Collector();
        publisher.subscribe(c);
        c.request(1);
        h.time.advance(Duration.ofMillis(100));
        assertThat(c.items).hasSize(1);
        c.subscription.cancel();
        h.time.runUntilIdle();
        assertThat(c.items).hasSize(1);
        assertThat(c.completions.get()).isZero();
        PoolStats stats = publisher.stats().join();
        assertThat(stats.stopCause()).get().extracting(PoolAbortedException::reason)
                .isEqualTo(PoolAbortedException.Reason.CANCELLED);
        assertThat(stats.succeeded() + stats.failed()).isEqualTo(stats.accepted());
        assertThat(h.contexts).filteredOn(ctx -> ctx.cancellation().isCancelled()).isNotEmpty();
    }

    /** A subscriber that records its signals and throws from the one named. */
    private static final class Throwing implements Flow.Subscriber<Settled<Integer, Object>> {
        final String throwsIn;
        final List<String> signals = new CopyOnWriteArrayList<>();

        Throwing(String throwsIn) {
            this.throwsIn = throwsIn;
        }

        private void signal(String name) {
            signals.add(name);
            if (name.equals(throwsIn)) {
                throw new StackOverflowError("subscriber broke in " + name);
            }
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            signal("onSubscribe");
        }

        @Override
        public void onNext(Settled<Integer, Object> item) {
            signal("onNext");
        }

        @Override
        public void onError(Throwable t) {
            signal("onError");
        }

        @Override
        public void onComplete() {
            signal("onComplete");
        }
    }

    /**
     * A second subscriber is refused with onSubscribe and onError; one whose onSubscribe or
     * onError throws is refused all the same, and subscribe returns normally (Reactive Streams
     * 1.9), with nothing signalled after an onSubscribe that threw (2.13). The run of the first
     * goes on.
     */
    @Test
    void aRefusedSubscriberWhoseSignalsThrowDoesNotMakeSubscribeThrow() {
        PoolPublisher<Integer, Object> publisher = h.traced(ItemPool.of(items(5)))
                .publish(h.scripted((item, attempt) -> Reply.ok(10, item)));
        Collector first = new Collector();
        publisher.subscribe(first);
        Throwing brokenOnSubscribe = new Throwing("onSubscribe");
        Throwing brokenOnError = new Throwing("onError");

        Throwable fromOnSubscribe = catchThrowable(() -> publisher.subscribe(brokenOnSubscribe));
        Throwable fromOnError = catchThrowable(() -> publisher.subscribe(brokenOnError));
        first.request(Long.MAX_VALUE);
        h.time.runUntilIdle();

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(fromOnSubscribe).as("subscribe() of one whose onSubscribe throws").isNull();
            soft.assertThat(brokenOnSubscribe.signals).as("its signals").containsExactly("onSubscribe");
            soft.assertThat(fromOnError).as("subscribe() of one whose onError throws").isNull();
            soft.assertThat(brokenOnError.signals).as("its signals").containsExactly("onSubscribe", "onError");
            soft.assertThat(first.items).as("the first subscriber's items").hasSize(5);
            soft.assertThat(first.completions).as("its onComplete").hasValue(1);
        });
    }

    @Test
    void badRequestAndSecondSubscriberGetOnError() {
        PoolPublisher<Integer, Object> publisher = h.traced(ItemPool.of(items(5)))
                .publish(h.scripted((item, attempt) -> Reply.ok(10, item)));
        Collector first = new Collector();
        publisher.subscribe(first);
        Collector second = new Collector();
        publisher.subscribe(second);
        assertThat(second.error.get()).isInstanceOf(IllegalStateException.class);
        first.subscription.request(0);
        h.time.runUntilIdle();
        assertThat(first.error.get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.9");
        assertThat(first.completions.get()).isZero();
        assertThat(publisher.stats().join().stopCause()).isPresent();
    }
}
