package dev.adaptive.examples.demo;

import dev.adaptive.camel.AdaptiveComponent;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.service.ServiceHelper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The job as a Camel route: every item is sent, without blocking a thread, to
 * {@code adaptive:demo}, whose consumer route makes one camel-http GET per attempt. The http and
 * https components' own 429 retries are turned off, as the component's documentation requires, so
 * that the pool sees every 429 and pauses.
 */
public final class CamelRouteRun implements DemoRun {

    static final int INITIAL = 5;
    static final int MAX = 64;
    static final int WARM_UP_REQUESTS = 10;

    @Override
    public String name() {
        return "camel route";
    }

    @Override
    public String description() {
        return "adaptive:demo Camel route over camel-http (automaticRetriesDisabled=true), Vegas from "
                + INITIAL + " within [1, " + MAX + "]";
    }

    @Override
    public int initialConcurrency() {
        return INITIAL;
    }

    @Override
    public RunCounts run(Target target, int items, TraceRecorder trace) throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            configureHttp(camel);
            camel.getRegistry().bind("demoTrace", trace);
            String uri = camelUri(target);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:demo?initialLimit=" + INITIAL + "&maxLimit=" + MAX + "&taskTimeout=15s&traceListener=#demoTrace")
                            .routeId("demo-api")
                            .errorHandler(noErrorHandler())
                            .toD(uri)
                            .convertBodyTo(String.class);
                    // Warms camel-http and the JIT up without teaching the adaptive pool anything.
                    from("direct:warm-up").toD(uri).convertBodyTo(String.class);
                }
            });
            camel.start();
            try (var template = camel.createProducerTemplate()) {
                for (int k = 0; k < WARM_UP_REQUESTS; k++) {
                    template.requestBody("direct:warm-up", k);
                }
            }

            Endpoint endpoint = camel.getEndpoint("adaptive:demo");
            AsyncProducer producer = endpoint.createAsyncProducer();
            ServiceHelper.startService(producer);
            try {
                List<CompletableFuture<Exchange>> done = new ArrayList<>(items);
                trace.begin();
                for (int i = 0; i < items; i++) {
                    Exchange exchange = endpoint.createExchange();
                    exchange.getIn().setBody(i);
                    CompletableFuture<Exchange> finished = new CompletableFuture<>();
                    done.add(finished);
                    producer.process(exchange, doneSync -> {
                        trace.itemDone();
                        finished.complete(exchange);
                    });
                }
                CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.MINUTES);
                long failed = done.stream().filter(f -> f.join().getException() != null).count();
                int limit = camel.getComponent("adaptive", AdaptiveComponent.class).stats("demo")
                        .map(s -> s.limit()).orElse(0);
                return new RunCounts(items - failed, failed, limit);
            } finally {
                ServiceHelper.stopService(producer);
            }
        }
    }

    /**
     * Turns camel-http's own retries off and gives it at least {@link #MAX} connections per host on
     * both the {@code http} and the {@code https} component, since {@code --url} may name either.
     */
    static void configureHttp(CamelContext camel) {
        for (String scheme : List.of("http", "https")) {
            HttpComponent http = camel.getComponent(scheme, HttpComponent.class);
            http.setAutomaticRetriesDisabled(true);
            // The pool, not the HTTP client, must be what limits concurrency.
            http.setConnectionsPerRoute(MAX);
            http.setMaxTotalConnections(2 * MAX);
        }
    }

    // {i} becomes the exchange's body; GET, since the body (the index) is not a request body.
    static String camelUri(Target target) {
        String t = target.template().replace("{i}", "${body}");
        return t + (t.contains("?") ? "&" : "?") + "httpMethod=GET";
    }
}
