package dev.adaptive.camel;

import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting holds no thread: hundreds of exchanges queue on a pool of one slot, sent from the
 * test thread, while only a handful of threads exist; then they all run, one at a time.
 */
class NonBlockingTest extends CamelTestSupport {

    private static final int EXCHANGES = 500;
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CountDownLatch firstEntered = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();

    @AfterEach
    void openGate() {
        gate.countDown();
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:one").routeId("one").process(e -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    try {
                        firstEntered.countDown();
                        // Holds the only slot until the test has counted the threads.
                        assertThat(gate.await(60, TimeUnit.SECONDS)).isTrue();
                        e.getMessage().setBody("done " + e.getIn().getBody());
                    } finally {
                        running.decrementAndGet();
                    }
                });
            }
        };
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void hundredsOfExchangesWaitOnAPoolOfOneWithOnlyAHandfulOfThreads() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int before = threads.getThreadCount();

        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:one?algorithm=fixed&maxLimit=1", EXCHANGES,
                i -> i, Map.of());
        assertThat(firstEntered.await(30, TimeUnit.SECONDS)).isTrue();

        // Every send returned at once to this single thread, and the queue holds the rest.
        assertThat(batch.asyncReturns()).isEqualTo(EXCHANGES);
        AdaptiveStats waiting = context.getComponent("adaptive", AdaptiveComponent.class).stats("one").orElseThrow();
        assertThat(waiting.inflight()).isEqualTo(1);
        assertThat(waiting.waiting()).isEqualTo(EXCHANGES - 1);
        assertThat(waiting.pending()).isEqualTo(EXCHANGES);
        int during = threads.getThreadCount();
        long poolThreads = Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                .filter(t -> t != null && t.getThreadName().contains("Adaptive[one]")).count();
        System.out.printf("threads before=%d, with %d exchanges waiting=%d, pool threads=%d%n", before,
                EXCHANGES - 1, during, poolThreads);
        assertThat(poolThreads).as("threads running attempts").isEqualTo(1);
        assertThat(during - before).as("threads created while %d exchanges wait", EXCHANGES - 1)
                .isLessThanOrEqualTo(5);

        gate.countDown();
        List<Exchange> done = batch.await(60);
        assertThat(done).allSatisfy(e -> {
            assertThat(e.getException()).isNull();
            assertThat(e.getMessage().getBody(String.class)).startsWith("done ");
            assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(1);
            assertThat(e.getMessage().getHeader(AdaptiveConstants.CONCURRENCY, Integer.class)).isEqualTo(1);
        });
        assertThat(maxRunning.get()).as("attempts at once").isEqualTo(1);
        AdaptiveStats after = context.getComponent("adaptive", AdaptiveComponent.class).stats("one").orElseThrow();
        assertThat(after.completed()).isEqualTo(EXCHANGES);
        assertThat(after.maxLimitReached()).isEqualTo(1);
        long poolThreadsAfter = Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds()))
                .filter(t -> t != null && t.getThreadName().contains("Adaptive[one]")).count();
        // A finished attempt's thread may still be idling in the cached pool while the next
        // attempt starts on a new one, so a few may be alive; never anywhere near the queue length.
        assertThat(poolThreadsAfter).as("threads follow the limit, not the %d exchanges", EXCHANGES)
                .isLessThanOrEqualTo(8);
        batch.stop();
    }
}
