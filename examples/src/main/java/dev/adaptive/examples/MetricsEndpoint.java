package dev.adaptive.examples;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * Serves a {@link PrometheusMeterRegistry}'s scrape on {@code GET /metrics}, on 127.0.0.1, with
 * the JDK's HTTP server: what a Prometheus server (or {@code curl}) reads. For the Camel Main
 * example; the Vert.x example uses vertx-micrometer-metrics' own embedded server instead.
 * Thread-safe; {@link #close()} stops it.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private final HttpServer server;

    private MetricsEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * @param registry the registry to serve
     * @param port     the port; 0 for any free one
     * @return the running endpoint
     * @throws IOException if the port cannot be bound
     */
    public static MetricsEndpoint start(PrometheusMeterRegistry registry, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/metrics", exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        return new MetricsEndpoint(server);
    }

    /** @return where the scrape is served */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metrics");
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
