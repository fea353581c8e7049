package dev.adaptive.vertx;

import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import io.vertx.micrometer.backends.BackendRegistries;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Vert.x's Micrometer metrics on, every limiter shows its meters in their registry: two
 * calls at once through the adaptive web client to a real loopback server that takes one at a
 * time, so the second is answered 429 with {@code Retry-After: 1}; the Prometheus scrape shows
 * the pause while it is open, then the decrease and the retry.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MicrometerMetricsTest {

    private Vertx vertx;

    @AfterEach
    void close() {
        if (vertx != null) {
            Await.result(vertx.close());
        }
    }

    @Test
    void theScrapeShowsThePauseThenTheDecreaseAndTheRetry() throws Exception {
        vertx = Vertx.vertx(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
                .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))));
        PrometheusMeterRegistry registry = (PrometheusMeterRegistry) BackendRegistries.getDefaultNow();
        // Base 50 ms, soft 1, hard 1 (the second call at once is refused), Retry-After 1 s.
        FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.of(50, 1, 1, Duration.ofSeconds(1)));
        int port = server.port();
        CompletableFuture<String> duringPause = new CompletableFuture<>();
        TraceListener onPause = e -> {
            if (e instanceof TraceEvent.RatePause) {
                duringPause.complete(registry.scrape());
            }
        };
        AdaptiveLimiter limiter = AdaptiveLimiter.builder(vertx, new AdaptiveOptions().setName("inventory")
                .setInitialLimit(2)).traceListener(onPause).build();
        AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
        var first = client.send(WebClient.create(vertx).get(port, "127.0.0.1", "/a"));
        var second = client.send(WebClient.create(vertx).get(port, "127.0.0.1", "/b"));
        Await.result(Future.all(first, second));
        assertThat(first.result().statusCode()).isEqualTo(200);
        assertThat(second.result().statusCode()).isEqualTo(200);

        assertThat(duringPause).isDone();
        assertThat(duringPause.get())
                .contains("adaptive_limiter_paused{name=\"inventory\"} 1.0")
                .contains("adaptive_limiter_pauses_total{name=\"inventory\"} 1.0");
        String after = registry.scrape();
        Files.writeString(Path.of("target", "vertx-scrape.txt"), after);
        assertThat(after)
                .contains("adaptive_limiter_paused{name=\"inventory\"} 0.0")
                .contains("adaptive_limiter_limit_changes_total{direction=\"decrease\",name=\"inventory\"} 1.0")
                .contains("adaptive_limiter_retries_total{cause=\"rate_limited\",name=\"inventory\"} 1.0")
                .contains("adaptive_limiter_attempts_total{name=\"inventory\",outcome=\"rate_limited\"} 1.0")
                .contains("adaptive_limiter_attempts_total{name=\"inventory\",outcome=\"success\"} 2.0");

        Await.result(limiter.close());
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter");
        server.close();
    }

    /**
     * Two limiters of one name (both unnamed, say: "adaptive"): the second runs without meters
     * (a warning says why) rather than share the first's, and closing it leaves the first's.
     */
    @Test
    void aSecondLimiterOfTheSameNameRunsWithoutMetersAndLeavesTheFirstsInPlace() {
        vertx = Vertx.vertx(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
                .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))));
        PrometheusMeterRegistry registry = (PrometheusMeterRegistry) BackendRegistries.getDefaultNow();
        AdaptiveLimiter first = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setAlgorithm("fixed").setMaxLimit(10));
        AdaptiveLimiter second = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setAlgorithm("fixed").setMaxLimit(20));
        assertThat(second.stats().getInteger("limit")).as("the second limiter runs").isEqualTo(20);
        assertThat(registry.scrape()).contains("adaptive_limiter_limit{name=\"adaptive\"} 10.0");
        Await.result(second.close());
        assertThat(registry.scrape()).as("the first is still open").contains("adaptive_limiter_limit{name=\"adaptive\"} 10.0");
        Await.result(first.close());
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter_limit");
    }
}
