package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
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

import java.net.URI;
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
public final class VertxFace implements HttpFace {

    /** Connections per host, as for the Camel face: never the binding limit here. */
    private static final int CONNECTIONS = 100;

    @Override
    public boolean adaptive() {
        return true;
    }

    @Override
    public String name() {
        return "adaptive (vert.x AdaptiveWebClient)";
    }

    @Override
    public Tally run(URI server, Scenario scenario) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            WebClient web = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(CONNECTIONS));
            AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("s3"));
            AdaptiveWebClient client = AdaptiveWebClient.create(web, limiter);
            long t0 = System.nanoTime();
            List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>(scenario.items());
            for (int i = 0; i < scenario.items(); i++) {
                sent.add(client.send(client.get(server.getPort(), server.getHost(), "/")));
            }
            // join, not all: wait for every item, failed ones included.
            Future.join(sent).toCompletionStage().toCompletableFuture()
                    .handle((all, failure) -> null).get(5, TimeUnit.MINUTES);
            long wall = System.nanoTime() - t0;
            int ok = (int) sent.stream().filter(f -> f.succeeded() && f.result().statusCode() == 200).count();
            limiter.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            web.close();
            return new Tally(ok, scenario.items() - ok, wall);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
