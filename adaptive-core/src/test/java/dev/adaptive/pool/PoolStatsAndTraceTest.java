package dev.adaptive.pool;

import dev.adaptive.RateLimitedException;
import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.limit.Aimd;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.LongAdder;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static dev.adaptive.pool.VirtualPoolHarness.ms;
import static dev.adaptive.pool.VirtualPoolHarness.noJitter;
import static org.assertj.core.api.Assertions.assertThat;

/** performanceData from limit changes, the other counters, and the trace stream of a run. */
class PoolStatsAndTraceTest {

    private final VirtualPoolHarness h = new VirtualPoolHarness();

    private AdaptiveResult<Integer, Object> runWithOneRateLimit() {
        // Aimd capped at its initial 4: only the 429 moves it, down to 4 * 0.5 = 2.
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(0, 1, 2, 3))
                .withAlgorithm(Aimd.builder().initialLimit(4).minLimit(1).maxLimit(4).decreaseFactor(0.5)
                        .stabilityWindow(100).build())
                .withRetryPolicy(noJitter().build())
                .process(h.scripted((item, attempt) -> item == 0 && attempt == 1
                        ? Reply.fail(100, new RateLimitedException(Duration.ofMillis(400)))
                        : Reply.ok(100, item)));
        return h.finish(run);
    }

    @Test
    void performanceDataRecordsHowLongThePoolRanAtEachLimit() {
        AdaptiveResult<Integer, Object> r = runWithOneRateLimit();
        PoolStats s = r.stats();
        // 0..3 start at 0; at 100 item 0's 429 halves the limit and pauses until 500; its retry
        // runs 500..600.
        assertThat(h.startTimesOf(0)).containsExactly(0L, ms(500));
        assertThat(s.performanceData()).containsExactly(
                new ConcurrencySegment(4, Duration.ofMillis(100)),
                new ConcurrencySegment(2, Duration.ofMillis(500)));
        assertThat(s.timeAtConcurrency()).containsExactly(
                Map.entry(2, Duration.ofMillis(500)), Map.entry(4, Duration.ofMillis(100)));
        assertThat(s.performanceDataTruncated()).isFalse();
        assertThat(s.finalConcurrency()).isEqualTo(2);
        assertThat(s.maxConcurrencyReached()).isEqualTo(4);
        assertThat(s.rateLimitEvents()).isEqualTo(1);
        assertThat(s.totalRetries()).isEqualTo(1);
        assertThat(s.totalAttempts()).isEqualTo(5);
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(600));
        assertThat(s.performanceData().stream().map(ConcurrencySegment::duration).reduce(Duration.ZERO, Duration::plus))
                .isEqualTo(s.elapsed());
    }

    @Test
    void theTraceHasEveryEventKindWithVirtualTimestamps() {
        runWithOneRateLimit();
        assertThat(h.eventsOf(TraceEvent.TaskStart.class)).extracting(TraceEvent::timeNanos)
                .containsExactly(0L, 0L, 0L, 0L, ms(500));
        assertThat(h.eventsOf(TraceEvent.TaskStart.class)).extracting(TraceEvent.TaskStart::inflight)
                .containsExactly(1, 2, 3, 4, 1);
        assertThat(h.eventsOf(TraceEvent.TaskEnd.class)).hasSize(5)
                .allSatisfy(e -> assertThat(e.rttNanos()).isEqualTo(ms(100)));
        assertThat(h.eventsOf(TraceEvent.ConcurrencyChange.class)).singleElement().satisfies(c -> {
            assertThat(c.timeNanos()).isEqualTo(ms(100));
            assertThat(c.from()).isEqualTo(4);
            assertThat(c.to()).isEqualTo(2);
            assertThat(c.reason()).isEqualTo("rate-limit");
        });
        assertThat(h.eventsOf(TraceEvent.Decision.class)).hasSize(5).allSatisfy(d -> {
            assertThat(d.algorithm()).isEqualTo("aimd");
            assertThat(d.metrics()).isNotEmpty();
        });
        assertThat(h.eventsOf(TraceEvent.RatePause.class)).singleElement().satisfies(p -> {
            assertThat(p.timeNanos()).isEqualTo(ms(100));
            assertThat(p.untilNanos()).isEqualTo(ms(500));
        });
        assertThat(h.eventsOf(TraceEvent.Retry.class)).singleElement().satisfies(rt -> {
            assertThat(rt.timeNanos()).isEqualTo(ms(100));
            assertThat(rt.readyAtNanos()).isEqualTo(ms(500));
        });
        List<Long> times = h.events.stream().map(TraceEvent::timeNanos).toList();
        assertThat(times).isSorted();
    }

    @Test
    void aLiveSnapshotIncludesTheOpenStretch() {
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(0, 1))
                .withLimits(2, 1, 2)
                .process(h.scripted((item, attempt) -> Reply.ok(1000, item)));
        h.time.advance(Duration.ofMillis(250));
        PoolStats live = run.snapshot();
        assertThat(live.elapsed()).isEqualTo(Duration.ofMillis(250));
        assertThat(live.performanceData()).containsExactly(new ConcurrencySegment(2, Duration.ofMillis(250)));
        assertThat(live.accepted()).isEqualTo(2);
        assertThat(live.succeeded()).isZero();
        AdaptiveResult<Integer, Object> r = h.finish(run);
        assertThat(run.snapshot()).isEqualTo(r.stats());
    }

    @Test
    void performanceDataIsCappedButTimeAtConcurrencyStaysComplete() {
        PerformanceRecorder rec = new PerformanceRecorder(h.time,
                new CallbackFailures(System.getLogger("test"), "pool", "ticker", new LongAdder()));
        rec.start(1, 0);
        int changes = PoolStats.MAX_PERFORMANCE_SEGMENTS + 50;
        for (int i = 0; i < changes; i++) {
            h.time.advance(Duration.ofMillis(1));
            rec.onChange(1 + i % 2, 1 + (i + 1) % 2);
        }
        h.time.advance(Duration.ofMillis(1));
        rec.finish(h.time.nanoTime());
        assertThat(rec.segments(h.time.nanoTime())).hasSize(PoolStats.MAX_PERFORMANCE_SEGMENTS);
        assertThat(rec.truncated(h.time.nanoTime())).isTrue();
        Map<Integer, Duration> totals = rec.totals(h.time.nanoTime());
        assertThat(totals.values().stream().reduce(Duration.ZERO, Duration::plus))
                .isEqualTo(Duration.ofMillis(changes + 1));
    }

    @Test
    void aRunCancelledInOnSubscribeMeasuresItsElapsedFromWhenItWasMadeNotFromTheTickersZero() {
        VirtualTime time = new VirtualTime();
        time.advance(Duration.ofHours(5)); // the ticker reads 5 h when the run is made
        PoolPublisher<Integer, Integer> publisher = ItemPool.of(1, 2, 3).withVirtualTime(time)
                .publish((item, ctx) -> CompletableFuture.completedFuture(item));
        publisher.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.cancel();
            }

            @Override
            public void onNext(Settled<Integer, Integer> item) {
                // cancelled before any item: none comes
            }

            @Override
            public void onError(Throwable t) {
                // not what this test reads
            }

            @Override
            public void onComplete() {
                // not what this test reads
            }
        });
        time.runUntilIdle();

        PoolStats stats = publisher.stats().join();
        assertThat(stats.accepted()).isEqualTo(3);
        assertThat(stats.failed()).isEqualTo(3);
        assertThat(stats.elapsed()).as("elapsed of a run that never ran").isLessThan(Duration.ofSeconds(1));
    }
}
