package dev.adaptive.benchmarks.jmh;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How long it takes for {@code waiters} queued acquisitions to leave a full limiter, in one
 * shot (milliseconds for the whole batch, set up afresh for every shot):
 * <ul>
 *   <li>{@code floorAbort}: the least any queue can do, a {@link ConcurrentLinkedQueue} of
 *       {@link CompletableFuture}s polled and each failed;</li>
 *   <li>{@code floorCancelEach}: as many plain {@link CompletableFuture}s cancelled one by one,
 *       the least a cancel costs (each makes its {@code CancellationException});</li>
 *   <li>{@code limiterAbort}: {@link Limiter#abort()}, which fails every waiter;</li>
 *   <li>{@code limiterCancelEach}: every waiter's future cancelled by its caller, one after the
 *       other, newest first (callers giving up; for a queue that searches for the leaver from
 *       its head, the longest searches);</li>
 *   <li>{@code vertxClose}: the Vert.x {@link AdaptiveLimiter#close()} with its calls queued,
 *       run on the limiter's event loop as a verticle's {@code stop()} would run it, and timed
 *       there: what the event loop is held for.</li>
 * </ul>
 * Before leaving waiters became O(1), each one searched the queue for itself and these were
 * quadratic (40,000 waiters: seconds).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar WaiterExitBenchmark -rf json -rff benchmarks/results/jmh-waiter-exit.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(1)
public class WaiterExitBenchmark {

    /** Waiters per shot. */
    @Param({"40000", "100000"})
    public int waiters;

    private Vertx vertx;
    private Limiter limiter;
    private List<CompletableFuture<Lease>> queued;
    private Queue<CompletableFuture<Object>> floor;
    private List<CompletableFuture<Object>> plain;
    private AdaptiveLimiter vertxLimiter;

    /** Starts Vert.x once. */
    @Setup(Level.Trial)
    public void startVertx() {
        vertx = Vertx.vertx();
    }

    /** Closes Vert.x. @throws Exception if it does not close in time */
    @TearDown(Level.Trial)
    public void stopVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    /** A limiter of one slot, held, and {@link #waiters} acquisitions queued behind it; and the floor's queue. */
    @Setup(Level.Invocation)
    public void queue() {
        limiter = Limiter.builder().limit(FixedLimit.of(1)).maxQueueSize(Integer.MAX_VALUE).build();
        limiter.tryAcquire().orElseThrow();
        queued = new ArrayList<>(waiters);
        floor = new ConcurrentLinkedQueue<>();
        plain = new ArrayList<>(waiters);
        for (int i = 0; i < waiters; i++) {
            queued.add(limiter.acquire());
            floor.add(new CompletableFuture<>());
            plain.add(new CompletableFuture<>());
        }
        vertxLimiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setAlgorithm("fixed").setMaxLimit(1)
                .setMaxQueueSize(Integer.MAX_VALUE).setRetries(0).setStatsAddress(null));
        Promise<String> never = Promise.promise();
        vertxLimiter.execute(never::future);
        for (int i = 0; i < waiters; i++) {
            vertxLimiter.execute(() -> Future.succeededFuture("ran"));
        }
    }

    /** Frees what a shot left behind. */
    @TearDown(Level.Invocation)
    public void release() {
        limiter.abort();
        vertxLimiter.close();
    }

    /** @return how many futures it failed */
    @Benchmark
    public int floorAbort() {
        IllegalStateException closed = new IllegalStateException("closed");
        int n = 0;
        CompletableFuture<Object> f;
        while ((f = floor.poll()) != null) {
            f.completeExceptionally(closed);
            n++;
        }
        return n;
    }

    /** @return how many futures it cancelled */
    @Benchmark
    public int floorCancelEach() {
        int n = 0;
        for (int i = plain.size() - 1; i >= 0; i--) {
            if (plain.get(i).cancel(false)) {
                n++;
            }
        }
        return n;
    }

    /** @return waiters left (0) */
    @Benchmark
    public int limiterAbort() {
        limiter.abort();
        return limiter.waiting();
    }

    /** @return waiters left (0) */
    @Benchmark
    public int limiterCancelEach() {
        for (int i = queued.size() - 1; i >= 0; i--) {
            queued.get(i).cancel(false);
        }
        return limiter.waiting();
    }

    /**
     * @return the nanoseconds {@code close()} held the event loop
     * @throws InterruptedException if interrupted while waiting for the event loop
     */
    @Benchmark
    public long vertxClose() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        long[] held = new long[1];
        vertxLimiter.context().runOnContext(v -> {
            long start = System.nanoTime();
            vertxLimiter.close();
            held[0] = System.nanoTime() - start;
            done.countDown();
        });
        if (!done.await(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("close() did not run on the event loop");
        }
        return held[0];
    }
}
