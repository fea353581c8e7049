package dev.adaptive.examples.demo;

import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveOptions;
import dev.adaptive.vertx.AdaptiveWebClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The job on Vert.x: every item is one {@link AdaptiveWebClient} GET through an
 * {@link AdaptiveLimiter}; a 429 pauses the limiter until its {@code Retry-After}. Nothing
 * blocks the event loop; this class waits for the futures from the calling thread only.
 */
public final class VertxClientRun implements DemoRun {

    static final int INITIAL = 5;
    static final int MAX = 64;
    static final int WARM_UP_REQUESTS = 10;

    @Override
    public String name() {
        return "vertx client";
    }

    @Override
    public String description() {
        return "AdaptiveWebClient on an AdaptiveLimiter (Vert.x 5 event loop), Vegas from " + INITIAL
                + " within [1, " + MAX + "]";
    }

    @Override
    public int initialConcurrency() {
        return INITIAL;
    }

    @Override
    public RunCounts run(Target target, int items, TraceRecorder trace) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            AdaptiveOptions options = new AdaptiveOptions().setName("demo")
                    .setInitialLimit(INITIAL).setMaxLimit(MAX).setTaskTimeout(15_000)
                    .setStatsAddress(null);
            AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, options).traceListener(trace).build();
            // The limiter, not the connection pool, must be what limits concurrency.
            WebClient web = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(MAX));
            AdaptiveWebClient client = AdaptiveWebClient.create(web, limiter);

            // Warms the web client and the JIT up without teaching the limiter anything.
            for (int k = 0; k < WARM_UP_REQUESTS; k++) {
                web.getAbs(target.forItem(k)).send().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            List<Future<HttpResponse<Buffer>>> responses = new ArrayList<>(items);
            trace.begin();
            for (int i = 0; i < items; i++) {
                responses.add(client.send(client.getAbs(target.forItem(i))).onComplete(done -> trace.itemDone()));
            }
            Future.join(responses).toCompletionStage().toCompletableFuture()
                    .exceptionally(someFailed -> null)
                    .get(10, TimeUnit.MINUTES);
            long failed = responses.stream().filter(Future::failed).count();
            int limit = limiter.limiter().limit();
            limiter.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            web.close();
            return new RunCounts(items - failed, failed, limit);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
