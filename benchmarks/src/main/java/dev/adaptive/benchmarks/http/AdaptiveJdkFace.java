package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.limit.Outcome;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.retry.RateLimitHeaders;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.trace.TraceListener;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * Adaptive through the core pool with every default, and the JDK's {@link HttpClient}
 * ({@code sendAsync}): a 429 fails the task with a {@link RateLimitedException} carrying the raw
 * {@code Retry-After} header, which pauses the whole pool; a 500 fails it plainly (a drop,
 * retried with backoff). The client runs on an executor of {@value #IO_THREADS} threads, on which
 * the pool's work runs too. Stateless; each run builds its own client and pool.
 */
public final class AdaptiveJdkFace extends AdaptiveFace {

    /** Threads of the client's executor, on which the pool's completions run as well. */
    static final int IO_THREADS = 8;

    /** A face without tracing. */
    public AdaptiveJdkFace() {
        this(null);
    }

    /** @param trace receives the pool's trace events, or {@code null} */
    public AdaptiveJdkFace(TraceListener trace) {
        super(trace);
    }

    /**
     * @param trace        receives the pool's trace events, or {@code null}
     * @param quotaHeaders whether to read the quota the server announces
     */
    public AdaptiveJdkFace(TraceListener trace, boolean quotaHeaders) {
        super(trace, quotaHeaders);
    }

    /**
     * @param trace        receives the pool's trace events, or {@code null}
     * @param quotaHeaders whether to read the quota the server announces
     * @param retryBudget  whether the retry budget caps the retries
     */
    public AdaptiveJdkFace(TraceListener trace, boolean quotaHeaders, boolean retryBudget) {
        super(trace, quotaHeaders, retryBudget);
    }

    @Override
    public String name() {
        return "adaptive (core pool, java.net.http)" + settings();
    }

    @Override
    public Tally run(URI server, Scenario scenario) {
        // The client's executor runs the pool's work too (each answer's bookkeeping and the next
        // item's sendAsync): with two threads that work queued behind the client's own, and
        // S3-flat took ~1.93 s against ~1.77-1.82 s with 4 to 16 (docs/core-pool.md, Threads).
        ExecutorService io = Executors.newFixedThreadPool(IO_THREADS, r -> {
            Thread t = new Thread(r, "s3-jdk-client");
            t.setDaemon(true);
            return t;
        });
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(io)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            // 429s the pool had read when it granted each attempt its slot, sent with the attempt so
            // the server can tell arrivals the client could not have prevented from those it could:
            // read as the other two faces read them, when the pool took the answer (and paused),
            // not when this task's own stage saw it, which another of the client's threads may
            // follow with a grant the pool had made before it knew.
            GrantReads reads = new GrantReads();
            ItemPool<Integer> pool = ItemPool.of(IntStream.range(0, scenario.items()).boxed().toList())
                    .withName("s3")
                    .withRetryPolicy(RetryPolicy.builder().retries(scenario.retries()).build())
                    .withRetryBudget(retryBudget ? RetryBudget.defaults() : RetryBudget.unlimited())
                    .withClassifier((value, error) -> value instanceof HttpResponse<?> r ? classify(r) : null)
                    .withTraceListener(reads);
            if (trace != null) {
                pool = pool.withTraceListener(trace);
            }
            long t0 = System.nanoTime();
            AdaptiveResult<Integer, HttpResponse<String>> result = pool.process((item, ctx) -> client.sendAsync(
                                    HttpRequest.newBuilder(server).timeout(Duration.ofSeconds(30)).GET()
                                            .header(FlakyHttpServer.READ_429S_HEADER,
                                                    Long.toString(reads.atGrant(ctx.index(), ctx.attempt())))
                                            .header(FlakyHttpServer.ATTEMPT_HEADER, Integer.toString(ctx.attempt())).build(),
                                    HttpResponse.BodyHandlers.ofString()))
                    .join();
            reads.checkComplete();
            return new Tally(result.successes().size(), result.errors().size(), System.nanoTime() - t0);
        } finally {
            io.shutdownNow();
            awaitQuietly(io);
        }
    }

    /**
     * What a user of java.net.http writes: 200 a success, 429 (and 503 with Retry-After) a rate
     * limit with its Retry-After, anything else a drop; each with the quota the answer announces.
     */
    private Outcome classify(HttpResponse<?> response) {
        int code = response.statusCode();
        Outcome o;
        if (code == 200) {
            o = Outcome.SUCCESS;
        } else {
            var wait = RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), Clock.systemUTC());
            o = code == 429 || (code == 503 && wait.isPresent()) ? Outcome.rateLimited(wait.orElse(null)) : Outcome.DROPPED;
        }
        if (!quotaHeaders) {
            return o;
        }
        return RateLimitHeaders.parse(name -> response.headers().firstValue(name).orElse(null), Clock.systemUTC())
                .map(o::withQuota).orElse(o);
    }

    static void awaitQuietly(ExecutorService executor) {
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
