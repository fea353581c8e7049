package dev.adaptive.camel;

import org.apache.camel.AsyncProducer;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 100,000 exchanges through {@code adaptive:} into a trivial consumer route, sent
 * asynchronously from four threads that keep at most {@value #OUTSTANDING} exchanges on their
 * way at once. Every exchange completes, and the heap proves the pool's memory is
 * O(concurrency + waiting bound), not O(exchanges): the live heap (used after a full GC, taken
 * while exchanges are flowing) grows by far less than 100,000 retained exchanges would need
 * (a few hundred bytes each would already exceed the bound), and nothing stays behind after
 * the run. Prints exchanges/s and the heap figures; asserts no speed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HundredThousandExchangesTest extends CamelTestSupport {

    private static final int EXCHANGES = 100_000;
    private static final int SENDERS = 4;
    private static final int OUTSTANDING = 2_000;
    private static final int CHECKPOINT_EVERY = 12_500;
    private static final long MB = 1024 * 1024;
    /** Live-heap growth allowed while running: 100,000 exchanges retained at ~670 bytes each would exceed it. */
    private static final long RUNNING_BOUND = 64 * MB;
    /** Left after the run: 100,000 exchanges leaving ~170 bytes each behind would exceed it. */
    private static final long AFTER_BOUND = 16 * MB;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:bulk").routeId("bulk").setBody(constant("ok"));
            }
        };
    }

    @Test
    void everyExchangeCompletesAndMemoryFollowsConcurrencyNotTheExchangeCount() throws Exception {
        Endpoint endpoint = context.getEndpoint("adaptive:bulk");
        AsyncProducer producer = endpoint.createAsyncProducer();
        ServiceHelper.startService(producer);
        long baseline = liveHeap();
        resetPeaks();

        Semaphore outstanding = new Semaphore(OUTSTANDING);
        CountDownLatch allDone = new CountDownLatch(EXCHANGES);
        LongAdder succeeded = new LongAdder();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicLong maxLiveGrowth = new AtomicLong();
        List<Long> checkpoints = new ArrayList<>();

        long start = System.nanoTime();
        List<Thread> senders = new ArrayList<>();
        for (int s = 0; s < SENDERS; s++) {
            int sender = s;
            Thread t = new Thread(() -> {
                for (int i = sender; i < EXCHANGES; i += SENDERS) {
                    outstanding.acquireUninterruptibly();
                    Exchange e = endpoint.createExchange();
                    e.getIn().setBody(i);
                    producer.process(e, doneSync -> {
                        if (e.getException() == null && "ok".equals(e.getMessage().getBody())) {
                            succeeded.increment();
                        } else {
                            failures.add(e.getException() != null ? e.getException()
                                    : new AssertionError("body " + e.getMessage().getBody()));
                        }
                        outstanding.release();
                        allDone.countDown();
                    });
                    if (sender == 0 && i > 0 && i % CHECKPOINT_EVERY == 0) {
                        // Taken mid-run, with up to OUTSTANDING exchanges on their way.
                        long growth = liveHeap() - baseline;
                        checkpoints.add(growth / MB);
                        maxLiveGrowth.accumulateAndGet(growth, Math::max);
                    }
                }
            }, "bulk-sender-" + s);
            t.start();
            senders.add(t);
        }
        for (Thread t : senders) {
            t.join(TimeUnit.SECONDS.toMillis(90));
        }
        assertThat(allDone.await(90, TimeUnit.SECONDS)).as("all %d exchanges completed", EXCHANGES).isTrue();
        double seconds = (System.nanoTime() - start) / 1e9;
        ServiceHelper.stopService(producer);

        long peakUsed = peakHeapUsed();
        long afterGrowth = liveHeap() - baseline;
        long retainedIfKept = retainedByKeepingExchanges(endpoint);
        AdaptiveStats stats = context.getComponent("adaptive", AdaptiveComponent.class).stats("bulk").orElseThrow();
        System.out.printf("bulk: %d exchanges in %.1f s = %.0f exchanges/s from %d threads, at most %d outstanding;"
                        + " limit %d (max reached %d); live heap baseline %d MB, growth at checkpoints %s MB (max %d MB),"
                        + " after the run %d MB; peak used heap incl. garbage %d MB; keeping every exchange would"
                        + " retain ~%d MB%n",
                EXCHANGES, seconds, EXCHANGES / seconds, SENDERS, OUTSTANDING, stats.limit(), stats.maxLimitReached(),
                baseline / MB, checkpoints, maxLiveGrowth.get() / MB, afterGrowth / MB, peakUsed / MB,
                retainedIfKept / MB);

        assertThat(failures).isEmpty();
        assertThat(succeeded.sum()).isEqualTo(EXCHANGES);
        assertThat(stats.accepted()).isEqualTo(EXCHANGES);
        assertThat(stats.completed()).isEqualTo(EXCHANGES);
        assertThat(stats.rejected()).isZero();
        assertThat(stats.pending()).isZero();
        assertThat(stats.inflight()).isZero();
        assertThat(stats.waiting()).isZero();
        assertThat(checkpoints).as("heap checkpoints taken while running").hasSize(EXCHANGES / CHECKPOINT_EVERY - 1);
        // The bound means something: O(exchanges) state, even the bare exchanges, would break it.
        assertThat(retainedIfKept).as("heap retained by %d bare exchanges", EXCHANGES).isGreaterThan(RUNNING_BOUND);
        assertThat(maxLiveGrowth.get()).as("live heap growth while running").isLessThan(RUNNING_BOUND);
        assertThat(afterGrowth).as("live heap growth left after the run").isLessThan(AFTER_BOUND);
    }

    /**
     * @return the live heap that {@link #EXCHANGES} exchanges as the producer receives them
     *         (body and headers set, no pool state) take, measured on a tenth and scaled
     */
    private long retainedByKeepingExchanges(Endpoint endpoint) {
        int n = EXCHANGES / 10;
        List<Exchange> kept = new ArrayList<>(n);
        long before = liveHeap();
        for (int i = 0; i < n; i++) {
            Exchange e = endpoint.createExchange();
            e.getIn().setBody(i);
            e.getMessage().setHeader(AdaptiveConstants.ATTEMPTS, 1);
            kept.add(e);
        }
        long retained = (liveHeap() - before) * 10;
        assertThat(kept).hasSize(n);
        return retained;
    }

    /** @return the heap in use after a full collection: what is reachable */
    private long liveHeap() {
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** @return the sum of the heap pools' peaks since {@link #resetPeaks()}: an upper bound, garbage included */
    private static long peakHeapUsed() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }
}
