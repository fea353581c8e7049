package dev.adaptive.vertx;

import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario S3 of docs/benchmarks.md through {@link AdaptiveWebClient}: the shared flaky HTTP server on
 * loopback (base 40 ms, soft 6, hard 12, 429 with {@code Retry-After: 1} past the hard cap), 200
 * requests. The client starts above the hard cap so that the first burst does meet 429s.
 */
@ExtendWith(VertxExtension.class)
class AdaptiveWebClientFlakyServerTest {

    private static final int ITEMS = 200;
    private static final int HARD = 12;

    @RegisterExtension
    final FlakyHttpServerExtension flaky = FlakyHttpServerExtension.of(FlakyModel.of(40, 6, HARD, Duration.ofSeconds(1)));

    @Test
    void everyRequestCompletesNothingArrivesInsideAnAnnouncedWindowAndConcurrencySettlesBelowTheCap(Vertx vertx) {
        FlakyHttpServer server = flaky.get();
        int port = server.port();
        LimitRecorder limits = new LimitRecorder(System.nanoTime(), 16);
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setName("s3")
                .setInitialLimit(16).setMaxLimit(50).setStatsAddress(null)).traceListener(limits).build();
        AdaptiveWebClient client = AdaptiveWebClient.create(
                WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(64)), limiter);
        // Open the connections first, so that the first burst reaches the server at once even on
        // a loaded machine, and meets the hard cap.
        List<Future<HttpResponse<Buffer>>> warm = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            warm.add(client.webClient().get(port, "127.0.0.1", "/warm").send());
        }
        warm.forEach(Await::result);
        long start = System.nanoTime();
        List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>();
        for (int i = 0; i < ITEMS; i++) {
            calls.add(client.send(client.get(port, "127.0.0.1", "/items/" + i), (request, ctx) -> request
                    .putHeader(FlakyHttpServer.READ_429S_HEADER, String.valueOf(limiter.limiter().stats().rateLimitEvents()))
                    .send()));
        }
        for (int i = 0; i < ITEMS; i++) {
            HttpResponse<Buffer> r = Await.result(calls.get(i));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.getHeader(FlakyHttpServer.PATH_HEADER)).isEqualTo("/items/" + i);
        }
        long end = System.nanoTime();
        long wallMs = (end - start) / 1_000_000;
        double settled = limits.meanLimit(start + (end - start) / 2, end);
        double serverSettled = server.meanBusyInflight(start + (end - start) / 2, end);
        System.out.printf("S3 via AdaptiveWebClient: %d requests in %d ms, %d x 429, arrivals inside announced "
                        + "windows %d (raw, counting requests already in flight when the 429 left: %d), "
                        + "final limit %d, mean limit over the second half %.1f, max limit %d, server max in flight %d, "
                        + "mean in flight at the busy server over the second half %.1f%n",
                ITEMS, wallMs, server.rateLimitedAnswers(), server.arrivalsInsideWindows(), server.rawArrivalsInsideWindows(),
                limiter.limiter().limit(), settled, limiter.limiter().stats().maxLimitReached(), server.maxInflight(),
                serverSettled);
        assertThat(server.served()).isEqualTo(ITEMS);
        assertThat(server.rateLimitedAnswers()).as("starting above the cap meets 429s").isPositive();
        assertThat(server.arrivals()).hasSize(ITEMS + server.rateLimitedAnswers());
        assertThat(server.arrivalsInsideWindows()).isZero();
        // Concurrency as the server sees it: the limit itself may sit higher when the client,
        // not the limit, is what holds the calls back (a starved machine).
        assertThat(serverSettled).as("concurrency settled below the hard cap").isLessThan(HARD);
        assertThat(limiter.limiter().inflight()).isZero();
    }
}
