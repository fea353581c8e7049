package dev.adaptive.benchmarks.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.adaptive.benchmarks.model.FlakyServer;
import dev.adaptive.benchmarks.model.Response;
import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.model.ServerStats;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The flaky API model behind a real HTTP server on 127.0.0.1 (JDK {@link HttpServer}, an
 * ephemeral port): {@code GET /} is answered after the model's latency with 200, with 429 and
 * {@code Retry-After} in whole seconds, or with 500. The model ({@link FlakyServer}) runs on the
 * wall clock and records arrivals, 429s, the peak in flight and arrivals during Retry-After as
 * the server sees them, split by the client's {@value #READ_429S} header when it sends one. No thread waits out a latency: answers are sent from a timer.
 *
 * <p>Thread-safe. {@link #close()} stops the server and its threads.
 */
public final class ModelHttpServer implements AutoCloseable {

    /**
     * Request header in which a client says how many 429 answers it had read when it sent the
     * request; lets the server count arrivals during Retry-After sent after the client could know.
     */
    public static final String READ_429S = "X-Read-429s";
    /**
     * Request header in which a client says which attempt of its item the request is, 1 for the
     * first; lets the server tell first attempts from retries among the arrivals in an outage.
     */
    public static final String ATTEMPT = "X-Attempt";

    static {
        // Headers and body go out in two writes; with Nagle on, the second waits for the
        // client's delayed ACK, adding 40 ms to some answers and none to others. That noise
        // would be the server's, not the model's. Read once, when the JDK server first loads.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TOO_MANY = "too many requests".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ERROR = "server error".getBytes(StandardCharsets.US_ASCII);

    private final HttpServer http;
    private final ScheduledThreadPoolExecutor timers;
    private final ExecutorService handlers;
    private final FlakyServer model;

    private ModelHttpServer(Scenario scenario, long seed) throws IOException {
        timers = new ScheduledThreadPoolExecutor(1, daemon("model-timer"));
        timers.setRemoveOnCancelPolicy(true);
        Scheduler scheduler = (task, delayNanos) -> {
            ScheduledFuture<?> f = timers.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        };
        model = new FlakyServer(scenario, Ticker.system(), scheduler, seed, false);
        handlers = Executors.newFixedThreadPool(4, daemon("model-http"));
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        http.setExecutor(handlers);
        http.createContext("/", this::handle);
        http.start();
    }

    /**
     * @param scenario the model's parameters (S3 for the scenario of that name)
     * @param seed     seed of the model's random choices
     * @return a started server
     * @throws IOException if it cannot bind
     */
    public static ModelHttpServer start(Scenario scenario, long seed) throws IOException {
        return new ModelHttpServer(scenario, seed);
    }

    private void handle(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        model.call(read429s(exchange.getRequestHeaders().getFirst(READ_429S)),
                        (int) Math.max(0, Math.min(Integer.MAX_VALUE, read429s(exchange.getRequestHeaders().getFirst(ATTEMPT)))))
                .whenComplete((response, error) -> respond(exchange, response));
    }

    private static long read429s(String header) {
        try {
            return header == null ? -1 : Long.parseLong(header.trim());
        } catch (NumberFormatException unreadable) {
            return -1;
        }
    }

    private static void respond(HttpExchange exchange, Response response) {
        try (exchange) {
            byte[] body;
            int code;
            if (response instanceof Response.TooManyRequests t) {
                code = 429;
                body = TOO_MANY;
                long seconds = Math.max(1, (t.retryAfter().toMillis() + 999) / 1000);
                exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
                announce(exchange, t.quota());
            } else if (response instanceof Response.ServerError) {
                code = 500;
                body = ERROR;
            } else {
                code = 200;
                body = OK;
                announce(exchange, ((Response.Ok) response).quota());
            }
            exchange.sendResponseHeaders(code, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (IOException clientWentAway) {
            // The client closed the connection; the model has already counted the answer.
        }
    }

    /**
     * Announces a quota in the IETF structured fields, the reset in whole seconds rounded up
     * (as servers do, so that a client never resumes before the window renews).
     */
    private static void announce(HttpExchange exchange, dev.adaptive.retry.Quota quota) {
        if (quota != null) {
            long seconds = (quota.reset().toMillis() + 999) / 1000;
            exchange.getResponseHeaders().set("RateLimit", "\"default\";r=" + quota.remaining() + ";t=" + seconds);
        }
    }

    /** @return the model behind the server, to add a quota or an outage before the first request */
    public FlakyServer model() {
        return model;
    }

    /** @return the base URI, {@code http://127.0.0.1:<port>/} */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/");
    }

    /** @return what the model saw so far */
    public ServerStats stats() {
        return model.stats();
    }

    @Override
    public void close() {
        http.stop(0);
        timers.shutdownNow();
        handlers.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
