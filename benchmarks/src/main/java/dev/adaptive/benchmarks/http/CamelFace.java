package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.camel.AdaptiveConstants;
import dev.adaptive.limit.Outcome;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Adaptive as a Camel user meets it: {@code from("direct:in").to("adaptive:s3")} with every
 * pool option at its default (Vegas, max 100, retries 3), and the consumer route
 * {@code from("adaptive:s3")} calling the server through the real camel-http component. As
 * docs/camel.md asks, the http component's own retries are off ({@code automaticRetriesDisabled},
 * or its client would sit out each 429 by itself, blind to the pool) and it has as many
 * connections per host as the pool's max; the component then reads camel-http's
 * {@code HttpOperationFailedException} for a 429 and its {@code Retry-After}. Every item is sent
 * with {@link ProducerTemplate#asyncSend(String, org.apache.camel.Processor)}, which does not
 * wait. Stateless; each run builds, and stops, its own CamelContext.
 */
public final class CamelFace extends AdaptiveFace {

    /** The pool's default {@code max}: the connections camel-http must allow per host. */
    private static final int POOL_MAX = 100;

    /** A face without tracing. */
    public CamelFace() {
        this(null);
    }

    /** @param trace also receives the pool's trace events, or {@code null} */
    public CamelFace(TraceListener trace) {
        super(trace);
    }

    /**
     * @param trace        also receives the pool's trace events, or {@code null}
     * @param quotaHeaders the pool's {@code quotaHeaders} option
     */
    public CamelFace(TraceListener trace, boolean quotaHeaders) {
        super(trace, quotaHeaders);
    }

    /**
     * @param trace        also receives the pool's trace events, or {@code null}
     * @param quotaHeaders the pool's {@code quotaHeaders} option
     * @param retryBudget  the pool's {@code retryBudget} option
     */
    public CamelFace(TraceListener trace, boolean quotaHeaders, boolean retryBudget) {
        super(trace, quotaHeaders, retryBudget);
    }

    @Override
    public String name() {
        return "adaptive (camel adaptive: + camel-http)" + settings();
    }

    @Override
    public Tally run(URI server, Scenario scenario) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        RateLimitReads reads = new RateLimitReads(trace);
        camel.getRegistry().bind("reads", reads);
        try {
            HttpComponent http = camel.getComponent("http", HttpComponent.class);
            http.setAutomaticRetriesDisabled(true);
            http.setConnectionsPerRoute(POOL_MAX);
            http.setMaxTotalConnections(POOL_MAX);
            String target = "http://" + server.getHost() + ":" + server.getPort() + "/?httpMethod=GET";
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    // The trace listener only observes: it times the 429s the pool reads.
                    from("direct:in").to("adaptive:s3?traceListener=#reads&quotaHeaders=" + quotaHeaders
                            + "&retryBudget=" + retryBudget + "&retries=" + scenario.retries());
                    // One attempt per exchange: failures go back to the pool, which retries them.
                    from("adaptive:s3").errorHandler(noErrorHandler())
                            // 429s the pool had read when it granted this attempt its slot, for the
                            // server's count of arrivals the client could have prevented
                            .process(e -> {
                                e.getIn().setHeader(FlakyHttpServer.READ_429S_HEADER,
                                        reads.before(e.getProperty(AdaptiveConstants.DISPATCHED, Long.class)));
                                e.getIn().setHeader(FlakyHttpServer.ATTEMPT_HEADER, e.getProperty(AdaptiveConstants.ATTEMPT));
                            })
                            .to(target)
                            .convertBodyTo(String.class);
                }
            });
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            long t0 = System.nanoTime();
            List<CompletableFuture<Exchange>> sent = new ArrayList<>(scenario.items());
            for (int i = 0; i < scenario.items(); i++) {
                int item = i;
                sent.add(template.asyncSend("direct:in", e -> e.getIn().setBody("item-" + item)));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
            long wall = System.nanoTime() - t0;
            int ok = 0;
            Exception firstFailure = null;
            for (CompletableFuture<Exchange> f : sent) {
                Exchange e = f.join();
                if (e.getException() == null
                        && Integer.valueOf(200).equals(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class))) {
                    ok++;
                } else if (firstFailure == null) {
                    firstFailure = e.getException();
                }
            }
            if (firstFailure != null) {
                // A failed item is a result, not an error of the harness; say why once.
                System.err.println(name() + ": first failure: " + firstFailure);
            }
            return new Tally(ok, scenario.items() - ok, wall);
        } finally {
            camel.close();
        }
    }

    /**
     * When the pool read each 429: the end of every rate-limited attempt, on the pool's clock
     * ({@code System.nanoTime()}, as the attempt's {@link AdaptiveConstants#DISPATCHED}).
     * Thread-safe.
     */
    private static final class RateLimitReads implements TraceListener {
        private final java.util.concurrent.ConcurrentLinkedQueue<Long> times = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final TraceListener next;

        RateLimitReads(TraceListener next) {
            this.next = next;
        }

        @Override
        public void onEvent(TraceEvent event) {
            if (next != null) {
                next.onEvent(event);
            }
            if (event instanceof TraceEvent.TaskEnd end && end.outcome() instanceof Outcome.RateLimited) {
                times.add(end.timeNanos());
            }
        }

        long before(Long nanos) {
            return nanos == null ? -1 : times.stream().filter(t -> t - nanos < 0).count();
        }
    }
}
