package dev.adaptive.benchmarks.jmh;

import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveOptions;
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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What {@link AdaptiveLimiter#execute(Supplier)} costs on a Vert.x event loop against calling
 * the supplier directly, when the supplier returns an already-completed future (so the figure is
 * the limiter's overhead alone, not a downstream's latency): calls per second, the limiter with
 * every default option ({@code limiterExecute}) and with {@code statsOnChange} off
 * ({@code limiterExecuteNoStatsListener}): with it on, the limiter registers a trace listener, so
 * the engine builds a trace event (a limit decision with its metrics map, say) for every call
 * even though that listener only wants Retry-After pauses; the second row shows what that costs.
 *
 * <p>JMH's thread is not a Vert.x thread, and a hop onto the event loop per call would dwarf what
 * is measured. So each invocation hops once and makes {@value #BATCH} calls there, one after
 * the other (the next when the previous has completed; a loop, not a recursion, when it completed
 * at once), then hands back; both rows pay that hop, amortised over the batch. JMH reports per
 * call ({@link OperationsPerInvocation}).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar VertxExecuteBenchmark -rf json -rff benchmarks/results/jmh-vertx.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class VertxExecuteBenchmark {

    /** Calls per hop onto the event loop. */
    static final int BATCH = 1_000;

    private static final Future<String> DONE = Future.succeededFuture("ok");
    private static final Supplier<Future<String>> SUPPLIER = () -> DONE;

    private Vertx vertx;
    private Context context;
    private AdaptiveLimiter limiter;
    private AdaptiveLimiter quiet;
    /** Written on the event loop, read by JMH's thread after the batch's hand-back. */
    private volatile long sink;

    /** Starts Vert.x and the limiter on one event-loop context. */
    @Setup(Level.Trial)
    public void setUp() {
        vertx = Vertx.vertx();
        context = vertx.getOrCreateContext();
        limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions()).context(context).build();
        quiet = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setName("quiet").setStatsOnChange(false))
                .context(context).build();
    }

    /** Closes both. @throws Exception if Vert.x does not close in time */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        limiter.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        quiet.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** @return calls made @throws Exception if the batch fails or hangs */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long limiterExecute() throws Exception {
        return batch(() -> limiter.execute(SUPPLIER));
    }

    /** @return calls made @throws Exception if the batch fails or hangs */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long limiterExecuteNoStatsListener() throws Exception {
        return batch(() -> quiet.execute(SUPPLIER));
    }

    /** @return calls made @throws Exception if the batch fails or hangs */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long supplierDirect() throws Exception {
        return batch(SUPPLIER);
    }

    private long batch(Supplier<Future<String>> call) throws Exception {
        CompletableFuture<Long> done = new CompletableFuture<>();
        context.runOnContext(v -> new Run(call, done).next());
        return done.get(30, TimeUnit.SECONDS);
    }

    /** One batch on the event loop: calls in sequence, looping while they complete at once. */
    private final class Run {
        private final Supplier<Future<String>> call;
        private final CompletableFuture<Long> done;
        private int remaining = BATCH;
        private long chars;

        Run(Supplier<Future<String>> call, CompletableFuture<Long> done) {
            this.call = call;
            this.done = done;
        }

        void next() {
            while (remaining > 0) {
                Future<String> f = call.get();
                if (!f.isComplete()) {
                    f.onComplete(r -> {
                        if (r.failed()) {
                            done.completeExceptionally(r.cause());
                            return;
                        }
                        took(r.result());
                        next();
                    });
                    return;
                }
                if (f.failed()) {
                    done.completeExceptionally(f.cause());
                    return;
                }
                took(f.result());
            }
            sink = chars;
            done.complete((long) BATCH);
        }

        private void took(String result) {
            chars += result.length();
            remaining--;
        }
    }
}
