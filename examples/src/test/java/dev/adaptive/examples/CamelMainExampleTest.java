package dev.adaptive.examples;

import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.camel.AdaptiveConstants;
import dev.adaptive.camel.AdaptiveStats;
import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Camel Main example, as {@code application.properties} configures it, against a real local
 * server that answers 429 with {@code Retry-After: 1} past 3 requests in flight: the pool starts
 * at 5, so its first burst meets the cap; the 429 pauses the whole pool, the refused exchanges are
 * sent again after the pause, and their {@code AdaptiveAttempts} header counts both attempts.
 * The Prometheus scrape the example serves shows the pause, the decrease and the retries.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CamelMainExampleTest {

    private static final int ORDERS = 30;

    @Test
    void aTooManyRequestsPausesThePoolAndTheExchangeCountsItsAttempts() throws Exception {
        List<TraceEvent.RatePause> pauses = new CopyOnWriteArrayList<>();
        try (FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.of(40, 2, 3, Duration.ofSeconds(1)))) {
            Main main = new Main();
            main.addOverrideProperty("api.url", server.uri().toString());
            main.addOverrideProperty("orders.count", "0");   // the test sends the orders itself
            main.addOverrideProperty("camel.main.duration-max-idle-seconds", "0");
            // Observed through the same configuration: a bean reference in a named pool's options.
            main.addOverrideProperty("camel.component.adaptive.pools.orders-api.trace-listener", "#pauses");
            main.bind("pauses", (TraceListener) event -> {
                if (event instanceof TraceEvent.RatePause pause) {
                    pauses.add(pause);
                }
            });
            CamelMainExample.Metrics metrics = CamelMainExample.withMetrics(main);
            main.start();
            metrics.afterStart(main); // main.run() calls it, main.start() does not
            try {
                CamelContext camel = main.getCamelContext();
                ProducerTemplate template = camel.createProducerTemplate();
                List<CompletableFuture<Exchange>> sent = new ArrayList<>();
                for (int i = 0; i < ORDERS; i++) {
                    int order = i;
                    sent.add(template.asyncSend("adaptive:orders-api", e -> e.getIn().setBody(order)));
                }
                List<Exchange> done = new ArrayList<>();
                for (CompletableFuture<Exchange> f : sent) {
                    done.add(f.get(60, TimeUnit.SECONDS));
                }

                assertThat(done).allSatisfy(e -> {
                    assertThat(e.getException()).isNull();
                    assertThat(e.getMessage().getBody(String.class)).isNotBlank();
                });
                assertThat(server.rateLimitedAnswers()).as("the server refused some with 429").isPositive();
                assertThat(pauses).as("the 429's Retry-After paused the pool").isNotEmpty()
                        .allSatisfy(p -> assertThat(p.retryAfter()).isEqualTo(Duration.ofSeconds(1)));
                assertThat(done).as("some exchange was refused, waited for the pause and went through")
                        .anySatisfy(e -> assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class))
                                .isGreaterThanOrEqualTo(2));
                assertThat(done).allSatisfy(e -> assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS,
                        Integer.class)).isBetween(1, 1 + 10));

                // What application.properties said, as the running pool and camel-http hold it.
                AdaptiveComponent adaptive = camel.getComponent("adaptive", AdaptiveComponent.class);
                AdaptiveConfig options = adaptive.options("orders-api").orElseThrow();
                assertThat(options.maxLimit()).isEqualTo(50);
                assertThat(options.retries()).isEqualTo(5);
                assertThat(options.maxDelay()).isEqualTo(Duration.ofSeconds(5));
                assertThat(options.maxRetryAfter()).as("the component's default").isEqualTo(Duration.ofMinutes(2));
                AdaptiveStats stats = adaptive.stats("orders-api").orElseThrow();
                assertThat(stats.completed()).isEqualTo(ORDERS);
                assertThat(stats.rateLimitEvents()).isPositive();
                for (String scheme : List.of("http", "https")) {
                    HttpComponent http = camel.getComponent(scheme, HttpComponent.class);
                    assertThat(http.isAutomaticRetriesDisabled()).as(scheme).isTrue();
                    assertThat(http.getConnectionsPerRoute()).as(scheme).isGreaterThanOrEqualTo(options.maxLimit());
                }

                String scrape = metrics.scrapeOverHttp();
                String tags = "camelContext=\"orders-example\",name=\"adaptive:orders-api\"";
                assertThat(scrape)
                        .containsPattern("adaptive_limiter_pauses_total\\{" + quoted(tags) + "\\} [1-9]")
                        .containsPattern("adaptive_limiter_limit_changes_total\\{camelContext=\"orders-example\","
                                + "direction=\"decrease\",name=\"adaptive:orders-api\"\\} [1-9]")
                        .containsPattern("adaptive_limiter_retries_total\\{camelContext=\"orders-example\","
                                + "cause=\"rate_limited\",name=\"adaptive:orders-api\"\\} [1-9]")
                        .contains("adaptive_limiter_attempts_total{" + tags + ",outcome=\"success\"} " + ORDERS + ".0");
            } finally {
                main.stop();
                metrics.close();
            }
        }
    }

    private static String quoted(String text) {
        return java.util.regex.Pattern.quote(text);
    }
}
