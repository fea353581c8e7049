package dev.adaptive.camel;

import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a {@code MeterRegistry} bean in the context, every pool shows its meters: a real
 * loopback server answers the first request with 429 and {@code Retry-After: 1}, through real
 * camel-http, and the Prometheus scrape shows the pause while it is open, then the decrease and
 * the retry.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MicrometerPoolTest extends CamelTestSupport {

    private static FlakyHttpServer server;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** The scrape taken on the thread that opened the pause, while it is open. */
    private final CompletableFuture<String> scrapeDuringPause = new CompletableFuture<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = FlakyHttpServer.start(FlakyHttpServer.Model.s3());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext context = super.createCamelContext();
        context.getRegistry().bind("meterRegistry", registry);
        TraceListener onPause = e -> {
            if (e instanceof TraceEvent.RatePause) {
                scrapeDuringPause.complete(registry.scrape());
            }
        };
        context.getRegistry().bind("onPause", onPause);
        return context;
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                getContext().getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
                from("direct:in").to("adaptive:orders?traceListener=#onPause");
                from("adaptive:orders").errorHandler(noErrorHandler())
                        .to("http://127.0.0.1:" + server.port() + "/first429/orders").convertBodyTo(String.class);
            }
        };
    }

    @Test
    void theScrapeShowsThePauseThenTheDecreaseAndTheRetry() throws Exception {
        assertThat(template.requestBody("direct:in", "x")).isEqualTo("ok");

        String tags = "camelContext=\"" + context.getName() + "\",name=\"adaptive:orders\"";
        assertThat(scrapeDuringPause).isDone();
        assertThat(scrapeDuringPause.get())
                .contains("adaptive_limiter_paused{" + tags + "} 1.0")
                .contains("adaptive_limiter_pauses_total{" + tags + "} 1.0")
                .containsPattern("adaptive_limiter_pause_remaining_seconds\\{" + tags.replace("\"", "\\\"")
                        + "\\} 0\\.9\\d*");

        String after = registry.scrape();
        Files.writeString(Path.of("target", "camel-scrape.txt"), after);
        assertThat(after)
                .contains("adaptive_limiter_paused{" + tags + "} 0.0")
                .contains("adaptive_limiter_limit_changes_total{camelContext=\"" + context.getName()
                        + "\",direction=\"decrease\",name=\"adaptive:orders\"} 1.0")
                .contains("adaptive_limiter_retries_total{camelContext=\"" + context.getName()
                        + "\",cause=\"rate_limited\",name=\"adaptive:orders\"} 1.0")
                .contains("adaptive_limiter_attempts_total{" + tags + ",outcome=\"rate_limited\"} 1.0")
                .contains("adaptive_limiter_attempts_total{" + tags + ",outcome=\"success\"} 1.0")
                .contains("adaptive_limiter_attempt_rtt_seconds_count{" + tags + ",outcome=\"success\"} 1");

        context.stop();
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter");
    }
}
