package dev.adaptive.examples.demo;

import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.PoolListener;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.retry.RetryPolicy;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * The job on {@link ItemPool} with {@code java.net.http}: concurrency found by the
 * default algorithm (Vegas, starting at 5, within [1, 64]), default retries, and a 429
 * pausing the whole pool until its {@code Retry-After}.
 */
public final class AdaptivePoolRun implements DemoRun {

    static final int INITIAL = 5;
    static final int MAX = 64;

    @Override
    public String name() {
        return "adaptive pool";
    }

    @Override
    public int initialConcurrency() {
        return INITIAL;
    }

    @Override
    public String description() {
        return "ItemPool over java.net.http: Vegas from " + INITIAL + " within [1, " + MAX
                + "], a 429 pauses every worker until Retry-After";
    }

    @Override
    public RunCounts run(Target target, int items, TraceRecorder trace) {
        // The pool's work runs on the client's threads too: several, not two (docs/core-pool.md, Threads).
        ExecutorService io = Executors.newFixedThreadPool(8, Threads.daemon("pool-http"));
        try {
            HttpClient client = HttpClient.newBuilder().executor(io).connectTimeout(Duration.ofSeconds(5)).build();
            List<Integer> indices = IntStream.range(0, items).boxed().toList();
            AtomicLong ok = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            trace.begin();
            PoolStats stats = ItemPool.of(indices)
                    .withName("demo")
                    .withLimits(INITIAL, 1, MAX)
                    .withRetryPolicy(RetryPolicy.defaults())
                    .withTaskTimeout(Duration.ofSeconds(15))
                    .withTraceListener(trace)
                    .stream((Integer i, dev.adaptive.TaskContext ctx) -> Http.get(client, target.uri(i)),
                            PoolListener.<Integer, String>of(
                                    result -> {
                                        ok.incrementAndGet();
                                        trace.itemDone();
                                    },
                                    error -> {
                                        failed.incrementAndGet();
                                        trace.itemDone();
                                    }))
                    .join();
            return new RunCounts(ok.get(), failed.get(), stats.finalConcurrency());
        } finally {
            io.shutdownNow();
        }
    }
}
