package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.testing.FlakyHttpServer;
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

import dev.adaptive.trace.TraceListener;

import java.net.URI;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Adaptive as a Vert.x user meets it: the {@link AdaptiveWebClient} over a real Vert.x
 * {@link WebClient} and an {@link AdaptiveLimiter} with every default option (Vegas, retries 3,
 * no max), on a fresh Vert.x instance. The web client's connection pool is raised from Vert.x's
 * default of 5 per host to {@value #CONNECTIONS}: a pool of 5 would be a fixed concurrency limit
 * in disguise, below the server's soft cap. All items are sent at once from the calling thread;
 * completions arrive on the limiter's context. Stateless; each run builds, and closes, its own
 * Vert.x instance.
 */
public final class VertxFace extends AdaptiveFace {

    /** Connections per host, as for the Camel face: never the binding limit here. */
    private static final int CONNECTIONS = 100;

    /** A face without tracing. */
    public VertxFace() {
        this(null);
    }

    /** @param trace also receives the limiter's trace events, or {@code null} */
    public VertxFace(TraceListener trace) {
        super(trace);
    }

    /**
     * @param trace        also receives the limiter's trace events, or {@code null}
     * @param quotaHeaders the limiter's {@code quotaHeaders} option
     */
    public VertxFace(TraceListener trace, boolean quotaHeaders) {
        super(trace, quotaHeaders);
    }

    /**
     * @param trace        also receives the limiter's trace events, or {@code null}
     * @param quotaHeaders the limiter's {@code quotaHeaders} option
     * @param retryBudget  the limiter's {@code retryBudget} option
     */
    public VertxFace(TraceListener trace, boolean quotaHeaders, boolean retryBudget) {
        super(trace, quotaHeaders, retryBudget);
    }

    @Override
    public String name() {
        return "adaptive (vert.x AdaptiveWebClient)" + settings();
    }

    @Override
    public Tally run(URI server, Scenario scenario) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            WebClient web = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(CONNECTIONS));
            GrantReads reads = new GrantReads();
            // The trace listener only observes: what the limiter had read when it granted each attempt.
            AdaptiveLimiter.Builder builder = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setName("s3")
                            .setQuotaHeaders(quotaHeaders).setRetryBudget(retryBudget).setRetries(scenario.retries()))
                    .traceListener(reads);
            if (trace != null) {
                builder.traceListener(trace);
            }
            AdaptiveLimiter limiter = builder.build();
            AdaptiveWebClient client = AdaptiveWebClient.create(web, limiter);
            long t0 = System.nanoTime();
            List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>(scenario.items());
            for (int i = 0; i < scenario.items(); i++) {
                // Each attempt says how many 429s the limiter had read when it granted the slot.
                sent.add(client.send(client.get(server.getPort(), server.getHost(), "/"), (copy, ctx) -> copy
                        .putHeader(FlakyHttpServer.READ_429S_HEADER, Long.toString(reads.atGrant(ctx.index(), ctx.attempt())))
                        .putHeader(FlakyHttpServer.ATTEMPT_HEADER, Integer.toString(ctx.attempt()))
                        .send()));
            }
            // join, not all: wait for every item, failed ones included.
            Future.join(sent).toCompletionStage().toCompletableFuture()
                    .handle((all, failure) -> null).get(5, TimeUnit.MINUTES);
            long wall = System.nanoTime() - t0;
            int ok = (int) sent.stream().filter(f -> f.succeeded() && f.result().statusCode() == 200).count();
            limiter.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            web.close();
            reads.checkComplete();
            return new Tally(ok, scenario.items() - ok, wall);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
