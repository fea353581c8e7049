package dev.adaptive.examples;

import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.camel.AdaptiveStats;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The {@code adaptive:} Camel component in the Java DSL: a parallel split hands 50 orders to
 * the pool {@code orders-api}, whose route makes one camel-http GET per attempt. camel-http's
 * own 429 retries are off, so the pool sees every 429 and pauses.
 *
 * <pre>java dev.adaptive.examples.CamelJavaDslExample [base-url]</pre>
 */
public final class CamelJavaDslExample {

    private CamelJavaDslExample() {
    }

    /**
     * @param args optional base URL of the API (items are {@code /items/<n>} under it);
     *             default: an embedded flaky server
     * @throws Exception when Camel cannot start
     */
    public static void main(String[] args) throws Exception {
        try (ExampleTarget where = ExampleTarget.fromArgs(args);
             CamelContext camel = new DefaultCamelContext()) {
            String api = where.baseUrl();
            // camel-http retries 429s itself on http and https unless told not to, and must have at least
            // maxLimit connections per host (application.properties: camel.component.http.*, camel.component.https.*)
            for (String scheme : List.of("http", "https")) {
                HttpComponent http = camel.getComponent(scheme, HttpComponent.class);
                http.setAutomaticRetriesDisabled(true);
                http.setConnectionsPerRoute(50);
            }
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:orders")
                            .split(body()).parallelProcessing()
                            .to("adaptive:orders-api?maxLimit=50");

                    // One attempt per exchange; the pool retries, so no error handler here.
                    from("adaptive:orders-api").errorHandler(noErrorHandler())
                            .toD(api + "/items/${body}?httpMethod=GET")
                            .convertBodyTo(String.class);
                }
            });
            camel.start();

            List<Integer> orders = IntStream.range(0, 50).boxed().toList();
            camel.createProducerTemplate().requestBody("direct:orders", orders);

            AdaptiveStats stats = camel.getComponent("adaptive", AdaptiveComponent.class).stats("orders-api").orElseThrow();
            System.out.printf("camel java: %d ok, %d failed, limit %d (max reached %d), %d rate-limit events%n",
                    stats.completed(), stats.failed(), stats.limit(), stats.maxLimitReached(), stats.rateLimitEvents());
        }
    }
}
