package dev.adaptive.vertx;

import dev.adaptive.LimiterStats;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.OutageRun;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An outage in the middle of a run ({@link OutageRun}: 300 requests with 5 retries, the server
 * answering 500 to everything for 2 s from its 100th arrival), through {@link AdaptiveWebClient}
 * to the flaky server on loopback. With the limiter's outage rule few requests reach the outage
 * and every request succeeds; with {@code outageProbe} 0 clearly more reach it.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AdaptiveWebClientOutageTest {

    @Test
    void fewRequestsReachAnOutageAndEveryRequestSucceedsAfterIt(Vertx vertx) {
        OutageRun on = run(vertx, new AdaptiveOptions().setName("outage-on"));
        System.out.printf("AdaptiveWebClient, outage rule on: %s%n", on);
        OutageRun off = run(vertx, new AdaptiveOptions().setName("outage-off").setOutageProbe(0));
        System.out.printf("AdaptiveWebClient, outageProbe=0: %s%n", off);
        OutageRun.check(on, off);
    }

    private static OutageRun run(Vertx vertx, AdaptiveOptions options) {
        try (FlakyHttpServer server = OutageRun.server()) {
            AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx,
                    options.setMaxLimit(OutageRun.MAX_LIMIT).setRetries(OutageRun.RETRIES));
            WebClient web = WebClient.create(vertx, new WebClientOptions(),
                    new PoolOptions().setHttp1MaxSize(2 * OutageRun.MAX_LIMIT));
            try {
                AdaptiveWebClient client = AdaptiveWebClient.create(web, limiter);
                List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>(OutageRun.CALLS);
                for (int i = 0; i < OutageRun.CALLS; i++) {
                    calls.add(client.send(client.get(server.port(), "127.0.0.1", "/items/" + i), (request, ctx) -> request
                            .putHeader(FlakyHttpServer.ATTEMPT_HEADER, Integer.toString(ctx.attempt())).send()));
                }
                int ok = 0;
                for (Future<HttpResponse<Buffer>> call : calls) {
                    Await.settled(call);   // every request ends, or this fails
                    if (call.succeeded() && call.result().statusCode() == 200) {
                        ok++;
                    }
                }
                LimiterStats stats = limiter.limiter().stats();
                return OutageRun.of(server, ok, stats.outages(), stats.attempts());
            } finally {
                web.close();
                Await.result(limiter.close());
            }
        }
    }
}
