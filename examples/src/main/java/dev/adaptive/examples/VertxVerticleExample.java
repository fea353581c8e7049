package dev.adaptive.examples;

import dev.adaptive.vertx.AdaptiveProxyVerticle;
import dev.adaptive.vertx.RateLimitReply;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import io.vertx.micrometer.backends.BackendRegistries;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Vert.x proxy verticle deployed from JSON config ({@code src/main/resources/vertx/proxy.json}):
 * callers send to the event-bus address {@code items}; the proxy forwards each request to
 * {@code items.backend} through an adaptive limiter; the backend verticle calls the HTTP API
 * and answers a 429 with the rate-limit reply convention, so the proxy pauses.
 *
 * <p>Vert.x's Micrometer metrics are on, with a Prometheus registry: the proxy's limiter
 * registers its meters there by itself ({@code adaptive_limiter_*{name="items"}}); the example
 * prints them at the end, and with {@code -Dmetrics.port=9465} also serves the scrape on
 * {@code http://127.0.0.1:9465/metrics} (vertx-micrometer-metrics' embedded server).
 *
 * <pre>java [-Dmetrics.port=9465] dev.adaptive.examples.VertxVerticleExample [url-with-{i}]</pre>
 */
public final class VertxVerticleExample {

    static final String CONFIG = "vertx/proxy.json";

    private VertxVerticleExample() {
    }

    /**
     * @param args optional URL template; default: an embedded flaky server
     * @throws Exception when a deployment fails
     */
    public static void main(String[] args) throws Exception {
        try (ExampleTarget where = ExampleTarget.fromArgs(args)) {
            Vertx vertx = Vertx.vertx(new VertxOptions().setMetricsOptions(metricsOptions()));
            try {
                JsonObject config = new JsonObject(resource(CONFIG));
                await(vertx.deployVerticle(new ApiBackend(where), new DeploymentOptions()));
                await(vertx.deployVerticle(new AdaptiveProxyVerticle(), new DeploymentOptions().setConfig(config)));

                List<Future<Message<Object>>> replies = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    replies.add(vertx.eventBus().request(config.getString("address"), i));
                }
                Future.join(replies).toCompletionStage().toCompletableFuture()
                        .exceptionally(someFailed -> null).get(2, TimeUnit.MINUTES);
                long ok = replies.stream().filter(Future::succeeded).count();
                System.out.printf("vertx proxy: %d ok, %d failed%n", ok, replies.size() - ok);
                System.out.println("vertx proxy: meters in the Prometheus scrape:");
                ((PrometheusMeterRegistry) BackendRegistries.getDefaultNow()).scrape().lines()
                        .filter(l -> l.startsWith("adaptive_limiter_") && !l.contains("outcome=\"ignored\"")
                                && !l.contains("outcome=\"dropped\""))
                        .forEach(l -> System.out.println("  " + l));
            } finally {
                await(vertx.close());
            }
        }
    }

    /** @return Micrometer metrics with a Prometheus registry, served if {@code metrics.port} is set */
    static MicrometerMetricsOptions metricsOptions() {
        int port = Integer.getInteger("metrics.port", 0);
        VertxPrometheusOptions prometheus = new VertxPrometheusOptions().setEnabled(true);
        if (port > 0) {
            prometheus.setStartEmbeddedServer(true)
                    .setEmbeddedServerOptions(new HttpServerOptions().setHost("127.0.0.1").setPort(port));
        }
        return new MicrometerMetricsOptions().setEnabled(true).setPrometheusOptions(prometheus);
    }

    /** Calls the API for each item; a 429 becomes a rate-limit reply the proxy understands. */
    static final class ApiBackend extends VerticleBase {
        private final ExampleTarget where;
        private WebClient client;

        ApiBackend(ExampleTarget where) {
            this.where = where;
        }

        @Override
        public Future<?> start() {
            // Vert.x keeps 5 connections per host by default, a fixed limit below the proxy's
            // adaptive one; give the backend as many as the limiter may ever allow.
            client = WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(100));
            return vertx.eventBus().<Integer>consumer("items.backend", this::handle).completion();
        }

        private void handle(Message<Integer> message) {
            client.getAbs(where.target().forItem(message.body())).send().onComplete(ar -> {
                if (ar.failed()) {
                    message.fail(500, ar.cause().toString());
                } else if (ar.result().statusCode() == 429) {
                    String retryAfter = ar.result().getHeader("Retry-After");
                    message.fail(RateLimitReply.RATE_LIMITED, RateLimitReply.RETRY_AFTER + (retryAfter == null ? "" : retryAfter));
                } else if (ar.result().statusCode() / 100 != 2) {
                    message.fail(ar.result().statusCode(), "HTTP " + ar.result().statusCode());
                } else {
                    message.reply(ar.result().bodyAsString());
                }
            });
        }
    }

    private static String resource(String name) {
        try (InputStream in = VertxVerticleExample.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
