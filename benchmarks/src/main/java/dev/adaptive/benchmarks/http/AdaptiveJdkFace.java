package dev.adaptive.benchmarks.http;

import dev.adaptive.RateLimitedException;
import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Adaptive through the core pool with every default, and the JDK's {@link HttpClient}
 * ({@code sendAsync}): a 429 fails the task with a {@link RateLimitedException} carrying the raw
 * {@code Retry-After} header, which pauses the whole pool; a 500 fails it plainly (a drop,
 * retried with backoff). Stateless; each run builds its own client and pool.
 */
public final class AdaptiveJdkFace extends AdaptiveFace {

    /** A face without tracing. */
    public AdaptiveJdkFace() {
        this(null);
    }

    /** @param trace receives the pool's trace events, or {@code null} */
    public AdaptiveJdkFace(TraceListener trace) {
        super(trace);
    }

    @Override
    public String name() {
        return "adaptive (core pool, java.net.http)";
    }

    @Override
    public Tally run(URI server, Scenario scenario) {
        ExecutorService io = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "s3-jdk-client");
            t.setDaemon(true);
            return t;
        });
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(io)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            // 429s this client has read, sent with each attempt so the server can tell arrivals it
            // could not have prevented from those it could.
            AtomicLong read429s = new AtomicLong();
            ItemPool<Integer> pool = ItemPool.of(IntStream.range(0, scenario.items()).boxed().toList())
                    .withName("s3")
                    .withRetryPolicy(RetryPolicy.builder().retries(scenario.retries()).build());
            if (trace != null) {
                pool = pool.withTraceListener(trace);
            }
            long t0 = System.nanoTime();
            AdaptiveResult<Integer, String> result = pool.process((item, ctx) -> client.sendAsync(
                                    HttpRequest.newBuilder(server).timeout(Duration.ofSeconds(30)).GET()
                                            .header(ModelHttpServer.READ_429S, Long.toString(read429s.get())).build(),
                                    HttpResponse.BodyHandlers.ofString())
                            .thenCompose(response -> classify(response, read429s)))
                    .join();
            return new Tally(result.successes().size(), result.errors().size(), System.nanoTime() - t0);
        } finally {
            io.shutdownNow();
            awaitQuietly(io);
        }
    }

    private static CompletableFuture<String> classify(HttpResponse<String> response, AtomicLong read429s) {
        int code = response.statusCode();
        if (code == 200) {
            return CompletableFuture.completedFuture(response.body());
        }
        if (code == 429) {
            read429s.incrementAndGet();
        }
        if (code == 429 || code == 503) {
            return CompletableFuture.failedFuture(new RateLimitedException("HTTP " + code,
                    response.headers().firstValue("Retry-After").orElse(null)));
        }
        return CompletableFuture.failedFuture(new IllegalStateException("HTTP " + code));
    }

    static void awaitQuietly(ExecutorService executor) {
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
