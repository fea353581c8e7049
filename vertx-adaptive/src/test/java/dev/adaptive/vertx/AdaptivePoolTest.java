package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ConcurrencySegment;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.PoolAbortedException;
import dev.adaptive.pool.Settled;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.parsetools.RecordParser;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(VertxExtension.class)
class AdaptivePoolTest {

    private static AdaptiveOptions fixed(int limit) {
        return new AdaptiveOptions().setAlgorithm("fixed").setMaxLimit(limit)
                .setMinDelay(1).setMaxDelay(5).setStatsAddress(null);
    }

    /** Completes after a short timer, tracking how many items are in the processor at once. */
    private static final class Worker {
        final Vertx vertx;
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();

        Worker(Vertx vertx) {
            this.vertx = vertx;
        }

        <R> Future<R> work(R value, long millis) {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            Promise<R> p = Promise.promise();
            vertx.setTimer(millis, id -> {
                inside.decrementAndGet();
                p.complete(value);
            });
            return p.future();
        }
    }

    @Test
    void everyItemEndsExactlyOnceAsAResultOrAnError(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(6).setRetries(1));
        List<Integer> items = IntStream.range(0, 300).boxed().toList();
        Worker w = new Worker(vertx);
        AdaptiveResult<Integer, Integer> r = Await.result(pool.process(items, (item, ctx) ->
                item % 10 == 0 ? Future.failedFuture(new IllegalStateException("bad " + item))
                        : w.work(item * 2, 1 + item % 3)));
        Set<Integer> seen = new HashSet<>();
        r.results().forEach(v -> assertThat(seen.add(v / 2)).as("result twice: " + v).isTrue());
        r.errors().forEach(e -> assertThat(seen.add(e.item())).as("error twice: " + e.item()).isTrue());
        assertThat(seen).containsExactlyInAnyOrderElementsOf(items);
        assertThat(r.errors()).hasSize(30).allSatisfy(e -> {
            assertThat(e.attempts()).isEqualTo(2);
            assertThat(e.index()).isEqualTo(e.item().longValue());
            assertThat(e.error()).hasMessage("bad " + e.item());
        });
        assertThat(r.stats().totalRetries()).isEqualTo(30);
        assertThat(r.stats().congestionEvents()).isEqualTo(60);
        assertThat(w.maxInside.get()).isLessThanOrEqualTo(6);
        assertThat(pool.limiter().limiter().inflight()).isZero();
    }

    @Test
    void aLazyIterableIsPulledOnlyWhenASlotIsFree(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(4));
        AtomicInteger pulled = new AtomicInteger();
        AtomicInteger settled = new AtomicInteger();
        AtomicInteger maxAhead = new AtomicInteger();
        Iterable<Integer> lazy = () -> new Iterator<>() {
            int next;

            @Override
            public boolean hasNext() {
                return next < 500;
            }

            @Override
            public Integer next() {
                maxAhead.accumulateAndGet(pulled.incrementAndGet() - settled.get(), Math::max);
                return next++;
            }
        };
        Worker w = new Worker(vertx);
        AdaptiveResult<Integer, Integer> r = Await.result(pool.process(lazy, (item, ctx) ->
                w.work(item, 1).onComplete(ar -> settled.incrementAndGet())));
        assertThat(r.results()).hasSize(500);
        assertThat(pulled).hasValue(500);
        assertThat(maxAhead.get()).as("items pulled but not settled").isLessThanOrEqualTo(4);
    }

    @Test
    void aReadStreamIsFetchedOneItemPerFreeSlot(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(5));
        List<Integer> items = IntStream.range(0, 400).boxed().toList();
        ListStream<Integer> stream = new ListStream<>(vertx.getOrCreateContext(), items, false);
        Worker w = new Worker(vertx);
        AdaptiveResult<Integer, Integer> r = Await.result(pool.process(stream, (item, ctx) -> w.work(item, 1)));
        assertThat(r.results()).containsExactlyInAnyOrderElementsOf(items);
        assertThat(stream.maxDemand.get()).as("outstanding demand").isEqualTo(1);
        assertThat(w.maxInside.get()).isLessThanOrEqualTo(5);
    }

    @Test
    void itemsAStreamPushesWithoutBeingAskedAreStillProcessedUnderTheLimit(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(3));
        List<Integer> items = IntStream.range(0, 200).boxed().toList();
        ListStream<Integer> unruly = new ListStream<>(vertx.getOrCreateContext(), items, true);
        Worker w = new Worker(vertx);
        AdaptiveResult<Integer, Integer> r = Await.result(pool.process(unruly, (item, ctx) -> w.work(item, 1)));
        assertThat(r.results()).containsExactlyInAnyOrderElementsOf(items);
        assertThat(w.maxInside.get()).isLessThanOrEqualTo(3);
    }

    @Test
    void aRealVertxFileStreamIsProcessedLineByLine(Vertx vertx, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("items.txt");
        Files.writeString(file, IntStream.range(0, 5_000).mapToObj(Integer::toString)
                .collect(Collectors.joining("\n", "", "\n")));
        AsyncFile async = Await.result(vertx.fileSystem().open(file.toString(), new OpenOptions().setRead(true)));
        RecordParser lines = RecordParser.newDelimited("\n", async);
        AdaptivePool pool = AdaptivePool.create(vertx, new AdaptiveOptions().setMaxLimit(16).setStatsAddress(null));
        Worker w = new Worker(vertx);
        AdaptiveResult<Buffer, Integer> r = Await.result(pool.process(lines, (line, ctx) ->
                w.work(Integer.parseInt(line.toString()), 1)));
        assertThat(r.results()).hasSize(5_000).doesNotHaveDuplicates();
        assertThat(r.errors()).isEmpty();
        assertThat(w.maxInside.get()).isLessThanOrEqualTo(16);
    }

    @Test
    void instantTasksNeitherGrowTheStackNorHogTheEventLoop(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(8));
        Context ctx = vertx.getOrCreateContext();
        AtomicBoolean timerRanDuringRun = new AtomicBoolean();
        AtomicBoolean runDone = new AtomicBoolean();
        Promise<PoolStats> done = Promise.promise();
        ctx.runOnContext(v -> {
            pool.<Integer, Integer>stream(() -> IntStream.range(0, 100_000).iterator(),
                    (item, tc) -> Future.succeededFuture(item), r -> { })
                    .onComplete(ar -> {
                        runDone.set(true);
                        done.handle(ar);
                    });
            // Queued behind the run's first slice: it runs before the run ends only if the run
            // hands the event loop back between slices. (A 1 ms timer here was timing-dependent.)
            ctx.runOnContext(x -> timerRanDuringRun.set(!runDone.get()));
        });
        PoolStats stats = Await.result(done.future());
        assertThat(stats.totalRetries()).isZero();
        assertThat(timerRanDuringRun).as("another task on the same event loop ran while the run was going").isTrue();
    }

    @Test
    void aStopPoolExceptionStopsPullingAndEndsTheRunningItemsAsErrors(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(4));
        AtomicInteger pulled = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        Iterable<Integer> items = () -> IntStream.range(0, 1_000).peek(i -> pulled.incrementAndGet()).iterator();
        AdaptiveResult<Integer, Integer> r = Await.result(pool.process(items, (item, ctx) -> {
            if (item == 10) {
                return Future.failedFuture(new StopPoolException("quota exhausted"));
            }
            if (item > 10) {
                ctx.cancellation().onCancel(cancelled::incrementAndGet);
                return Promise.<Integer>promise().future(); // would never finish on its own
            }
            return Future.succeededFuture(item);
        }));
        assertThat(r.results()).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 10).boxed().toList());
        assertThat(r.errors().get(0).item()).isEqualTo(10);
        assertThat(r.errors().get(0).error()).isInstanceOf(StopPoolException.class).hasMessage("quota exhausted");
        assertThat(r.errors().subList(1, r.errors().size())).allSatisfy(e -> assertThat(e.error())
                .isInstanceOfSatisfying(PoolAbortedException.class, stop -> {
                    assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.STOPPED);
                    assertThat(stop.getCause()).hasMessage("quota exhausted");
                }));
        assertThat(r.stats().stopCause()).get().extracting(PoolAbortedException::reason)
                .isEqualTo(PoolAbortedException.Reason.STOPPED);
        assertThat(r.stats().accepted()).isEqualTo(pulled.get());
        assertThat(r.results().size() + r.errors().size()).as("every pulled item ends once").isEqualTo(pulled.get());
        assertThat(pulled.get()).isLessThanOrEqualTo(11 + 4);
        assertThat(cancelled.get()).isEqualTo(r.errors().size() - 1);
        assertThat(pool.limiter().limiter().inflight()).isZero();
    }

    @Test
    void theStreamingFormHandsEachOutcomeOverAndReportsStats(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, new AdaptiveOptions().setMaxLimit(32).setRetries(0)
                .setStatsAddress(null));
        List<Settled<Integer, String>> outcomes = new ArrayList<>();
        AtomicReference<Context> onItemContext = new AtomicReference<>();
        Worker w = new Worker(vertx);
        Context caller = vertx.getOrCreateContext();
        Promise<PoolStats> done = Promise.promise();
        caller.runOnContext(v -> pool.<Integer, String>stream(IntStream.range(0, 400).boxed().toList(),
                (item, ctx) -> item == 3 ? Future.failedFuture("three") : w.work("v" + item, 2),
                r -> {
                    onItemContext.set(Vertx.currentContext());
                    outcomes.add(r);
                    if (r.index() == 5) {
                        throw new IllegalStateException("a broken callback does not stop the run");
                    }
                }).onComplete(done));
        PoolStats stats = Await.result(done.future());
        assertThat(outcomes).hasSize(400);
        assertThat(outcomes).filteredOn(r -> r instanceof Settled.Failed).singleElement()
                .satisfies(r -> assertThat(((Settled.Failed<Integer, String>) r).error().item()).isEqualTo(3));
        assertThat(stats.callbackFailures()).isEqualTo(1);
        assertThat(stats.succeeded()).isEqualTo(399);
        assertThat(stats.failed()).isEqualTo(1);
        assertThat(stats.completed()).isTrue();
        assertThat(onItemContext.get()).isSameAs(caller);
        assertThat(stats.maxConcurrencyReached()).isGreaterThanOrEqualTo(stats.finalConcurrency());
        assertThat(stats.performanceData()).isNotEmpty();
        Duration total = stats.performanceData().stream().map(ConcurrencySegment::duration)
                .reduce(Duration.ZERO, Duration::plus);
        assertThat(total).isPositive();
        JsonObject json = AdaptivePoolStats.of(stats).toJson();
        assertThat(json.getJsonArray("performanceData")).hasSize(stats.performanceData().size());
        assertThat(json.getLong("succeeded")).isEqualTo(399);
        assertThat(json.fieldNames()).contains("finalConcurrency", "maxConcurrencyReached", "congestionEvents",
                "rateLimitEvents", "outages", "totalRetries", "totalAttempts", "elapsedMs", "timeAtConcurrencyMs",
                "callbackFailures", "limitFailures")
                .doesNotContain("stopReason");
        assertThat(new JsonObject(json.encode())).isEqualTo(json);
    }

    /** The core's count of what the run survived in its limit and its time source reaches the JSON. */
    @Test
    void theStatsCarryTheRunsLimitFailures() {
        PoolStats stats = new PoolStats(4, 4, 0, 0, 0, 0, 2, 2, 2, 0, Duration.ofMillis(20), List.of(), false,
                new java.util.TreeMap<>(), 0, 3, java.util.Optional.empty());
        JsonObject json = AdaptivePoolStats.of(stats).toJson();
        assertThat(json.getLong("limitFailures")).as("limitFailures in " + json).isEqualTo(3);
        assertThat(new AdaptivePoolStats(json).getLimitFailures()).isEqualTo(3);
        assertThat(new AdaptivePoolStats(json).toJson()).isEqualTo(json);
    }

    @Test
    void closingTheLimiterEndsTheRunAndFailsItsRunningItems(Vertx vertx) {
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(2).setName("closing"));
        AtomicInteger started = new AtomicInteger();
        Future<AdaptiveResult<Integer, Integer>> run = twoHangingItems(pool, started);
        pool.limiter().close();
        // Two were running, and the run's acquisition for a third was queued: a slot comes
        // first, then the item, so no third was pulled. The limiter is aborted before its calls
        // are cancelled, so no freed slot starts another. close() (this thread) and the run (its
        // event loop) both cancel the running items: either way they end with the limiter's
        // LimiterClosedException, never the run's wrapper.
        assertEndedByClose(pool, Await.result(run), "closing", 2, 2);
    }

    @Test
    void closingTheLimiterFromTheRunsOwnContextEndsItemsWithTheCloseErrorToo(Vertx vertx) {
        // On its own context the run sees the refused acquisition inside close(), before close()
        // reaches the running calls: the run's cancel comes first and must carry the same error.
        AdaptivePool pool = AdaptivePool.create(vertx, fixed(2).setName("closing-inside"));
        AtomicInteger started = new AtomicInteger();
        Future<AdaptiveResult<Integer, Integer>> run = twoHangingItems(pool, started);
        Promise<Void> closed = Promise.promise();
        pool.limiter().context().runOnContext(v -> pool.limiter().close().onComplete(closed));
        Await.result(closed.future());
        assertEndedByClose(pool, Await.result(run), "closing-inside", 2, 2);
        assertThat(started).hasValue(2);
    }

    /**
     * Starts a run of 100 items that never complete on a pool of 2; returns once two run. The
     * input is lazy: only the items taken end (a collection's unpulled items would end too).
     */
    private static Future<AdaptiveResult<Integer, Integer>> twoHangingItems(AdaptivePool pool, AtomicInteger started) {
        Promise<Void> twoRunning = Promise.promise();
        Iterable<Integer> lazy = () -> IntStream.range(0, 100).boxed().iterator();
        Future<AdaptiveResult<Integer, Integer>> run = pool.process(lazy,
                (item, ctx) -> {
                    if (started.incrementAndGet() == 2) {
                        twoRunning.complete();
                    }
                    return Promise.<Integer>promise().future();
                });
        Await.result(twoRunning.future());
        return run;
    }

    private static void assertEndedByClose(AdaptivePool pool, AdaptiveResult<Integer, Integer> r, String name,
                                           int minErrors, int maxErrors) {
        assertThat(r.errors()).hasSizeBetween(minErrors, maxErrors).allSatisfy(e -> assertThat(e.error())
                .isInstanceOf(LimiterClosedException.class).hasMessageContaining(name));
        assertThat(r.stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED);
            assertThat(stop.getCause()).isInstanceOf(LimiterClosedException.class);
        });
        assertThat(pool.limiter().limiter().inflight()).isZero();
    }
}
