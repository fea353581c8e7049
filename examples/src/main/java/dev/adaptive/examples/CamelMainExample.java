package dev.adaptive.examples;

import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.camel.AdaptiveStats;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * A Camel Main application configured by {@code application.properties} alone: the routes
 * ({@code camel/orders-main.camel.yaml}), camel-http without its own 429 retries and with enough
 * connections, and the {@code orders-api} pool ({@code camel.component.adaptive.pools.orders-api.*}).
 * The only code is this launcher, which starts a local flaky API when no {@code api.url} is given,
 * and binds the {@code meterRegistry} bean (a Prometheus registry) that every pool's meters go
 * to, served on {@code /metrics} at {@code metrics.port}.
 *
 * <pre>java dev.adaptive.examples.CamelMainExample [api-base-url]</pre>
 */
public final class CamelMainExample {

    private CamelMainExample() {
    }

    /**
     * The example's meters: a Prometheus registry bound as the {@code meterRegistry} bean, where
     * every pool's meters go, served once Camel has started on {@code metrics.port} of
     * {@code application.properties} (0: any free port).
     */
    static final class Metrics extends MainListenerSupport {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        private volatile MetricsEndpoint endpoint;

        @Override
        public void afterStart(BaseMainSupport started) {
            String port = started.getCamelContext().getPropertiesComponent().resolveProperty("metrics.port")
                    .orElse("0");
            try {
                endpoint = MetricsEndpoint.start(registry, Integer.parseInt(port.trim()));
            } catch (IOException e) {
                throw new UncheckedIOException("metrics.port=" + port + " cannot be bound", e);
            }
        }

        /** @return where the scrape is served, once started */
        MetricsEndpoint endpoint() {
            return endpoint;
        }

        /** @return the scrape as a Prometheus server reads it, over HTTP */
        String scrapeOverHttp() {
            try {
                return HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint.uri()).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** Stops serving. */
        void close() {
            MetricsEndpoint e = endpoint;
            if (e != null) {
                e.close();
            }
        }
    }

    /**
     * @param main the application, not started
     * @return its meters: the registry is bound at once, and served when Camel has started
     */
    static Metrics withMetrics(Main main) {
        Metrics metrics = new Metrics();
        main.bind("meterRegistry", metrics.registry);
        main.addMainListener(metrics);
        return metrics;
    }

    private static void printSummary(CamelContext context, Metrics metrics) {
        AdaptiveStats stats = context.getComponent("adaptive", AdaptiveComponent.class).stats("orders-api").orElse(null);
        if (stats != null) {
            System.out.printf("camel main: %d ok, %d failed, limit %d (max reached %d), %d rate-limit events%n",
                    stats.completed(), stats.failed(), stats.limit(), stats.maxLimitReached(), stats.rateLimitEvents());
        }
        System.out.println("camel main: meters scraped from " + metrics.endpoint().uri() + ":");
        metrics.scrapeOverHttp().lines().filter(l -> l.startsWith("adaptive_limiter_")
                        && !l.contains("outcome=\"ignored\"") && !l.contains("outcome=\"dropped\"")
                        && !l.contains("_max{"))
                .forEach(l -> System.out.println("  " + l));
    }

    /**
     * @param args optional base URL of the API ({@code /items/{i}} is appended); default: an embedded flaky server
     * @throws Exception when Camel cannot start
     */
    public static void main(String[] args) throws Exception {
        FlakyHttpServer local = args.length > 0 ? null : FlakyHttpServer.start(FlakyModel.s3());
        try {
            Main main = new Main();
            main.addOverrideProperty("api.url", local != null ? local.uri().toString() : args[0]);
            Metrics metrics = withMetrics(main);
            // The summary is read as the context begins to stop, on the thread that stops it and
            // before any route or component stops. A MainListener's beforeStop is too late here:
            // duration-max-idle stops the context on a thread of its own, and the component may
            // already have removed the pool's meters when beforeStop runs.
            main.bind("summaryOnStop", new EventNotifierSupport() {
                @Override
                public void notify(CamelEvent event) {
                    if (event instanceof CamelEvent.CamelContextStoppingEvent stopping) {
                        printSummary(stopping.getContext(), metrics);
                    }
                }
            });
            main.run();
            metrics.close();
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }
}
