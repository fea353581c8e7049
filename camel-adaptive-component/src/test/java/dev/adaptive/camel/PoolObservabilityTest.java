package dev.adaptive.camel;

import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator sees of a pool, from a real loopback server that answers the first request
 * with 429 and {@code Retry-After: 1}, through real camel-http. With a {@code MeterRegistry} bean
 * in the context, the Prometheus scrape shows the pause while it is open, then the decrease and
 * the retry. The log lines, as slf4j-simple writes them to standard error: the engine's pause
 * opened and closed at INFO (System.Logger, through the bridge the component brings), and a
 * throwing classifier at WARN once, then at DEBUG (below the tests' level).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoolObservabilityTest extends CamelTestSupport {

    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.s3());
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** The scrape taken on the thread that opened the pause, while it is open. */
    private final CompletableFuture<String> scrapeDuringPause = new CompletableFuture<>();
    @RegisterExtension
    final StandardErrorCapture err = new StandardErrorCapture();

    private List<String> logLines() {
        return err.lines();
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext context = super.createCamelContext();
        context.getRegistry().bind("meterRegistry", registry);
        context.getRegistry().bind("onPause", (TraceListener) e -> {
            if (e instanceof TraceEvent.RatePause) {
                scrapeDuringPause.complete(registry.scrape());
            }
        });
        context.getRegistry().bind("brokenClassifier", (ExchangeClassifier) exchange -> {
            throw new IllegalStateException("classifier bug");
        });
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
                from("direct:broken").to("adaptive:broken?classifier=#brokenClassifier");
                from("adaptive:broken").setBody(constant("ok"));
            }
        };
    }

    @Test
    void theScrapeShowsThePauseThenTheDecreaseAndTheRetryAndThePauseIsLogged() throws Exception {
        assertThat(template.requestBody("direct:in", "x")).isEqualTo("ok");

        String tags = "camelContext=\"" + context.getName() + "\",name=\"adaptive:orders\"";
        assertThat(scrapeDuringPause).isDone();
        assertThat(scrapeDuringPause.get())
                .contains("adaptive_limiter_paused{" + tags + "} 1.0")
                .contains("adaptive_limiter_pauses_total{" + tags + "} 1.0")
                // Scraped when the 1 s pause opened: some of it remains, however long the scrape
                // took to run on a loaded machine (0.86 s was seen at a load of 6).
                .containsPattern("adaptive_limiter_pause_remaining_seconds\\{" + tags.replace("\"", "\\\"")
                        + "\\} (0\\.[1-9]\\d*|1\\.0)\n");

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

        assertThat(logLines()).filteredOn(l -> l.contains("dev.adaptive.limiter")).satisfiesExactly(
                opened -> assertThat(opened).contains("INFO").contains("limiter 'adaptive:orders': Retry-After pause"
                        + " opened, dispatch held for PT1S (asked PT1S, not capped by maxRetryAfter=PT10M)"),
                closed -> assertThat(closed).contains("INFO")
                        .containsPattern("limiter 'adaptive:orders': Retry-After pause closed after PT1(\\.\\d+)?S,"
                                + " dispatch resumes with 1 waiting"));

        context.stop();
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter");
    }

    @Test
    void aThrowingClassifierIsLoggedAtWarnOnce() {
        for (int i = 0; i < 3; i++) {
            assertThat(template.requestBody("direct:broken", "x")).isEqualTo("ok");
        }
        assertThat(logLines()).filteredOn(l -> l.contains("Classifier of adaptive pool 'broken'")).singleElement()
                .satisfies(l -> assertThat(l).contains("WARN").contains("threw; the default reading applies"
                        + " (logged once at WARN, later failures at DEBUG)"));
        assertThat(err.text()).contains("java.lang.IllegalStateException: classifier bug");
    }
}
