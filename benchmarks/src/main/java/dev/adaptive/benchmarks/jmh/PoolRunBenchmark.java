package dev.adaptive.benchmarks.jmh;

import dev.adaptive.pool.PoolListener;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveOptions;
import dev.adaptive.vertx.AdaptivePool;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * What one item costs a pool run when its task is already answered (so the figure is the run's
 * own work: pull, lease, execution, settle, hand-over), items per second, through both faces of
 * the one batch runner:
 * <ul>
 *   <li>{@code corePool}: {@link dev.adaptive.pool.ItemPool#stream} over a list of
 *       {@value #ITEMS} items with a completed {@link CompletableFuture} per item, started and
 *       joined on JMH's thread (synchronous tasks: the whole run happens inside
 *       {@code stream});</li>
 *   <li>{@code vertxPool}: {@link AdaptivePool#stream} over the same list with
 *       {@code Future.succeededFuture} per item, started on an event-loop context (one hop per
 *       run), which yields the event loop every few hundred items as it must.</li>
 * </ul>
 * Both use each face's default options (Vegas, statistics on for Vert.x). JMH reports per item
 * ({@link OperationsPerInvocation}).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar PoolRunBenchmark -rf json -rff benchmarks/results/jmh-pool.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PoolRunBenchmark {

    /** Items per run. */
    static final int ITEMS = 1_000;

    private static final List<Integer> INPUT = IntStream.range(0, ITEMS).boxed().toList();
    private static final CompletableFuture<Integer> DONE = CompletableFuture.completedFuture(1);
    private static final Future<Integer> VERTX_DONE = Future.succeededFuture(1);

    private Vertx vertx;
    private Context context;
    private AdaptivePool pool;
    /** Written by the runs, read by JMH's thread after each run ended. */
    private volatile long sink;

    /** Starts Vert.x and the Vert.x pool's limiter on one event-loop context. */
    @Setup(Level.Trial)
    public void setUp() {
        vertx = Vertx.vertx();
        context = vertx.getOrCreateContext();
        pool = AdaptivePool.create(AdaptiveLimiter.builder(vertx, new AdaptiveOptions()).context(context).build());
    }

    /** Closes both. @throws Exception if Vert.x does not close in time */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        pool.limiter().close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** @return items that succeeded */
    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public long corePool() {
        PoolStats stats = dev.adaptive.pool.ItemPool.of(INPUT)
                .stream((item, ctx) -> DONE, PoolListener.<Integer, Integer>of(r -> sink += r.value(), e -> { }))
                .join();
        return stats.succeeded();
    }

    /** @return items that succeeded @throws Exception if the run fails or hangs */
    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public long vertxPool() throws Exception {
        CompletableFuture<PoolStats> done = new CompletableFuture<>();
        context.runOnContext(v -> pool.<Integer, Integer>stream(INPUT, (item, ctx) -> VERTX_DONE, r -> sink += r.index())
                .onComplete(ar -> {
                    if (ar.succeeded()) {
                        done.complete(ar.result());
                    } else {
                        done.completeExceptionally(ar.cause());
                    }
                }));
        return done.get(30, TimeUnit.SECONDS).succeeded();
    }
}
