package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.testing.FlakyHttpServer;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Failsafe 3 at a fixed concurrency: {@code c} worker threads each send with the JDK
 * {@link HttpClient} inside {@code Failsafe.with(retryPolicy).get(...)}; the retry policy retries
 * a 429 after the answer's own {@code Retry-After} (a delay function, the way Failsafe's
 * documentation shows it), up to 10 times, and a 500 with the scenario's exponential backoff.
 * Per request; nothing tells the other workers. Stateless; each run builds its own client.
 */
public final class FailsafeRetryFace implements HttpFace {

    private final int concurrency;

    /** @param concurrency worker threads, at least 1 */
    public FailsafeRetryFace(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        this.concurrency = concurrency;
    }

    @Override
    public String name() {
        return "failsafe retry-after c=" + concurrency;
    }

    @Override
    public Tally run(URI server, Scenario scenario) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "s3-failsafe");
            t.setDaemon(true);
            return t;
        });
        ExecutorService io = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "s3-failsafe-io");
            t.setDaemon(true);
            return t;
        });
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(io)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            // 429s the client (any of its threads) has read, sent with each attempt.
            AtomicLong read429s = new AtomicLong();
            RetryPolicy<HttpResponse<String>> rateLimits = RetryPolicy.<HttpResponse<String>>builder()
                    .handleResultIf(r -> r.statusCode() == 429 || r.statusCode() == 503)
                    .withMaxRetries(ApacheRetryFace.RATE_LIMIT_RETRIES)
                    .withDelayFn(ctx -> retryAfter(ctx.getLastResult()))
                    .build();
            RetryPolicy<HttpResponse<String>> errors = RetryPolicy.<HttpResponse<String>>builder()
                    .handleResultIf(r -> r.statusCode() >= 500 && r.statusCode() != 503)
                    .withMaxRetries(scenario.retries())
                    .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(30))
                    .withJitter(0.2)
                    .build();
            FailsafeExecutor<HttpResponse<String>> failsafe = Failsafe.with(rateLimits).compose(errors);
            long t0 = System.nanoTime();
            List<Future<Boolean>> items = new ArrayList<>();
            for (int i = 0; i < scenario.items(); i++) {
                items.add(workers.submit(() -> failsafe.get(() -> {
                    HttpResponse<String> response = client.send(HttpRequest.newBuilder(server)
                            .timeout(Duration.ofSeconds(30)).GET()
                            .header(FlakyHttpServer.READ_429S_HEADER, Long.toString(read429s.get())).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 429) {
                        read429s.incrementAndGet();
                    }
                    return response;
                }).statusCode() == 200));
            }
            int ok = 0;
            for (Future<Boolean> f : items) {
                try {
                    if (f.get()) {
                        ok++;
                    }
                } catch (java.util.concurrent.ExecutionException ioFailure) {
                    // counted as failed below
                }
            }
            return new Tally(ok, scenario.items() - ok, System.nanoTime() - t0);
        } finally {
            workers.shutdownNow();
            io.shutdownNow();
            AdaptiveJdkFace.awaitQuietly(workers);
            AdaptiveJdkFace.awaitQuietly(io);
        }
    }

    private static Duration retryAfter(HttpResponse<String> response) {
        String value = response == null ? null : response.headers().firstValue("Retry-After").orElse(null);
        try {
            return value == null ? Duration.ofSeconds(1) : Duration.ofSeconds(Long.parseLong(value.trim()));
        } catch (NumberFormatException notSeconds) {
            return Duration.ofSeconds(1);
        }
    }
}
