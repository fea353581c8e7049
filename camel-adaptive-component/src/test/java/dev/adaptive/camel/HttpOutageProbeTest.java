package dev.adaptive.camel;

import dev.adaptive.LimiterStats;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.OutageRun;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outage in the middle of a run ({@link OutageRun}: 300 exchanges with 5 retries, the server
 * answering 500 to everything for 2 s from its 100th arrival), behind {@code to("adaptive:...")}
 * whose consumer route calls the flaky server on loopback through camel-http, its own retries
 * off and as many connections per route as the pool's {@code maxLimit} and more, as
 * docs/camel.md asks. With the pool's outage rule few requests reach the outage and every
 * exchange succeeds; with {@code outageProbe=0} clearly more reach it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class HttpOutageProbeTest {

    @Test
    void fewRequestsReachAnOutageAndEveryExchangeSucceedsAfterIt() throws Exception {
        OutageRun on = run("");
        System.out.printf("adaptive: + camel-http, outage rule on: %s%n", on);
        OutageRun off = run("&outageProbe=0");
        System.out.printf("adaptive: + camel-http, outageProbe=0: %s%n", off);
        OutageRun.check(on, off);
    }

    private static OutageRun run(String options) throws Exception {
        try (FlakyHttpServer server = OutageRun.server(); CamelContext camel = new DefaultCamelContext()) {
            HttpComponent http = camel.getComponent("http", HttpComponent.class);
            http.setAutomaticRetriesDisabled(true);
            http.setConnectionsPerRoute(2 * OutageRun.MAX_LIMIT);
            http.setMaxTotalConnections(2 * OutageRun.MAX_LIMIT);
            String target = "http://127.0.0.1:" + server.port() + "/items?httpMethod=GET";
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:in").to("adaptive:outage?maxLimit=" + OutageRun.MAX_LIMIT + "&retries="
                            + OutageRun.RETRIES + options);
                    // One attempt per exchange: a failure goes back to the pool, which retries it.
                    from("adaptive:outage").errorHandler(noErrorHandler())
                            .process(e -> e.getIn().setHeader(FlakyHttpServer.ATTEMPT_HEADER,
                                    e.getProperty(AdaptiveConstants.ATTEMPT)))
                            .to(target)
                            .convertBodyTo(String.class);
                }
            });
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            List<CompletableFuture<Exchange>> sent = new ArrayList<>(OutageRun.CALLS);
            for (int i = 0; i < OutageRun.CALLS; i++) {
                int item = i;
                sent.add(template.asyncSend("direct:in", e -> e.getIn().setBody("item-" + item)));
            }
            // Every exchange ends, or this fails.
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
            int ok = 0;
            for (CompletableFuture<Exchange> f : sent) {
                Exchange e = f.join();
                if (e.getException() == null
                        && Integer.valueOf(200).equals(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class))) {
                    ok++;
                }
            }
            AdaptiveComponent component = camel.getComponent("adaptive", AdaptiveComponent.class);
            LimiterStats stats = component.pool("outage").limiterStats();
            // The pool's public snapshot tells the same outages, and that none holds it any more.
            AdaptiveStats snapshot = component.stats("outage").orElseThrow();
            assertThat(snapshot.outages()).isEqualTo(stats.outages());
            assertThat(snapshot.outage()).isFalse();
            return OutageRun.of(server, ok, stats.outages(), stats.attempts());
        }
    }
}
