package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.testing.FlakyHttpServer;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.TimeValue;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Apache HttpClient 5 (classic) at a fixed concurrency: {@code c} worker threads share a
 * connection pool of {@code c}, and the client's {@link DefaultHttpRequestRetryStrategy} retries
 * 429 and 503 answers itself after each answer's own {@code Retry-After}, per request, up to
 * {@value #RATE_LIMIT_RETRIES} times. This is the library's documented way of honouring
 * Retry-After; nothing tells the other workers. Stateless; each run builds its own client.
 */
public final class ApacheRetryFace implements HttpFace {

    /** Retries after a 429, as for every client of the scenarios. */
    static final int RATE_LIMIT_RETRIES = 10;

    private final int concurrency;

    /** @param concurrency worker threads and pooled connections, at least 1 */
    public ApacheRetryFace(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        this.concurrency = concurrency;
    }

    @Override
    public String name() {
        return "apache httpclient5 retry c=" + concurrency;
    }

    @Override
    public Tally run(URI server, Scenario scenario) throws Exception {
        AtomicLong read429s = new AtomicLong();
        ExecutorService workers = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "s3-apache");
            t.setDaemon(true);
            return t;
        });
        try (CloseableHttpClient client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(concurrency).setMaxConnPerRoute(concurrency).build())
                .setRetryStrategy(new DefaultHttpRequestRetryStrategy(RATE_LIMIT_RETRIES, TimeValue.ofSeconds(1)))
                // Interceptors run for every retry too: each attempt says how many 429s the
                // client (any of its threads) had read.
                .addRequestInterceptorLast((request, entity, context) ->
                        request.setHeader(FlakyHttpServer.READ_429S_HEADER, Long.toString(read429s.get())))
                .addResponseInterceptorFirst((response, entity, context) -> {
                    if (response.getCode() == 429) {
                        read429s.incrementAndGet();
                    }
                })
                .build()) {
            long t0 = System.nanoTime();
            List<Future<Boolean>> items = new ArrayList<>();
            for (int i = 0; i < scenario.items(); i++) {
                items.add(workers.submit(() -> client.execute(new HttpGet(server), response -> {
                    EntityUtils.consume(response.getEntity());
                    return response.getCode() == 200;
                })));
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
            AdaptiveJdkFace.awaitQuietly(workers);
        }
    }
}
