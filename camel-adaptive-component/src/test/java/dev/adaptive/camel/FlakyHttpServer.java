package dev.adaptive.camel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) that behaves like the flaky API model of
 * docs/benchmarks.md, for integration tests through camel-http.
 *
 * <p>{@code GET /flaky}: let {@code n} be the requests in flight at arrival, counting the new
 * one. Past {@code hard}: a 429 with {@code Retry-After} after 2 ms (or a 500 for the over-cap
 * 500 share); otherwise a 200 after {@code base * (1 + (max(0, n - soft) / soft)^2)} ms, times
 * the jitter and tail factors, or a 500 with the transient probability.
 *
 * <p>Scripted paths for single behaviours: {@code /status/{code}} always answers that status
 * (with {@code ?retryAfter=v} as header); {@code /first429/{key}} answers 429 with
 * {@code Retry-After: 1} to the first request of each key and 200 after.
 *
 * <p>It records every arrival and, per client ({@code X-Client} header), the arrivals strictly
 * inside a Retry-After window it already announced to that client. Responses are sent from a
 * scheduler, never by sleeping. Thread-safe; {@link #close()} stops it.
 */
final class FlakyHttpServer implements AutoCloseable {

    /** The model's parameters; times in milliseconds. */
    record Model(double baseMs, int soft, int hard, int retryAfterSeconds, double jitter, double tailProbability,
                 double tailFactor, double transientProbability, double overCap500Share, long seed) {

        /** S3 of docs/benchmarks.md: base 40 ms, soft 6, hard 12, Retry-After 1 s, nothing random. */
        static Model s3() {
            return new Model(40, 6, 12, 1, 0, 0, 1, 0, 0, 1);
        }
    }

    /**
     * One arrival.
     *
     * @param nanos           when it arrived ({@link System#nanoTime()})
     * @param inflight        requests in flight at the server, itself included
     * @param client          the {@code X-Client} header
     * @param path            the request path
     * @param dispatchedNanos the client's {@code X-Dispatched} stamp (same JVM clock), or -1
     * @param windowStart     the start of the announced Retry-After window it arrived in, or -1
     */
    record Arrival(long nanos, int inflight, String client, String path, long dispatchedNanos, long windowStart) {

        boolean duringRetryAfter() {
            return windowStart != -1;
        }
    }

    private record Window(long startNanos, long endNanos) {
    }

    private final Model model;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService responder;
    private final Random random;
    private final AtomicInteger inflight = new AtomicInteger();
    private final List<Arrival> arrivals = new ArrayList<>();
    private final Map<String, List<Window>> windows = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> duringRetryAfter = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> firstSeen = new ConcurrentHashMap<>();
    private final AtomicInteger rateLimited = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();

    private FlakyHttpServer(Model model) throws IOException {
        this.model = model;
        this.random = new Random(model.seed());
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        this.handlers = Executors.newFixedThreadPool(4, r -> daemon(r, "flaky-http"));
        this.responder = Executors.newScheduledThreadPool(2, r -> daemon(r, "flaky-http-responder"));
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    static FlakyHttpServer start(Model model) throws IOException {
        return new FlakyHttpServer(model);
    }

    int port() {
        return server.getAddress().getPort();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    private void handle(HttpExchange ex) {
        long now = System.nanoTime();
        int n = inflight.incrementAndGet();
        String client = ex.getRequestHeaders().getFirst("X-Client");
        client = client == null ? "anonymous" : client;
        String path = ex.getRequestURI().getPath();
        String stamp = ex.getRequestHeaders().getFirst("X-Dispatched");
        long dispatched = stamp == null ? -1 : Long.parseLong(stamp);
        long windowStart = announcedWindowStart(client, now);
        synchronized (arrivals) {
            arrivals.add(new Arrival(now, n, client, path, dispatched, windowStart));
        }
        if (windowStart != -1) {
            duringRetryAfter.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
        }
        if (path.startsWith("/status/")) {
            int code = Integer.parseInt(path.substring("/status/".length()));
            String query = ex.getRequestURI().getQuery();
            String retryAfter = query != null && query.startsWith("retryAfter=")
                    ? java.net.URLDecoder.decode(query.substring("retryAfter=".length()), StandardCharsets.UTF_8)
                    : null;
            later(ex, client, code, retryAfter, 1);
        } else if (path.startsWith("/first429/")) {
            boolean first = firstSeen.computeIfAbsent(path, k -> new AtomicInteger()).getAndIncrement() == 0;
            later(ex, client, first ? 429 : 200, first ? "1" : null, first ? 2 : 5);
        } else {
            flaky(ex, client, n);
        }
    }

    private void flaky(HttpExchange ex, String client, int n) {
        double r1;
        double r2;
        double r3;
        double r4;
        synchronized (random) {
            r1 = random.nextDouble();
            r2 = random.nextDouble();
            r3 = random.nextDouble();
            r4 = random.nextDouble();
        }
        if (n > model.hard()) {
            boolean fiveHundred = r1 < model.overCap500Share();
            later(ex, client, fiveHundred ? 500 : 429, fiveHundred ? null : String.valueOf(model.retryAfterSeconds()), 2);
            return;
        }
        double over = Math.max(0, n - model.soft()) / (double) model.soft();
        double latency = model.baseMs() * (1 + over * over);
        latency *= 1 - model.jitter() + 2 * model.jitter() * r2;
        if (r3 < model.tailProbability()) {
            latency *= model.tailFactor();
        }
        boolean transientError = r4 < model.transientProbability();
        later(ex, client, transientError ? 500 : 200, null, Math.max(1, Math.round(latency)));
    }

    private void later(HttpExchange ex, String client, int status, String retryAfter, long delayMs) {
        responder.schedule(() -> respond(ex, client, status, retryAfter), delayMs, TimeUnit.MILLISECONDS);
    }

    private void respond(HttpExchange ex, String client, int status, String retryAfter) {
        try {
            byte[] body = (status == 200 ? "ok" : "status " + status).getBytes(StandardCharsets.UTF_8);
            if (retryAfter != null) {
                ex.getResponseHeaders().add("Retry-After", retryAfter);
            }
            if (status == 429) {
                rateLimited.incrementAndGet();
                announce(client, retryAfter);
            } else if (status >= 500) {
                errors.incrementAndGet();
            }
            // Counted out before the bytes leave, so the client can never see a slot freed
            // that the server still counts.
            inflight.decrementAndGet();
            ex.sendResponseHeaders(status, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        } catch (IOException | RuntimeException e) {
            // The client went away; nothing to record.
        } finally {
            ex.close();
        }
    }

    private void announce(String client, String retryAfter) {
        long seconds;
        try {
            seconds = Long.parseLong(retryAfter);
        } catch (NumberFormatException | NullPointerException notDelta) {
            return; // HTTP-date answers are only used by single-request tests
        }
        long start = System.nanoTime();
        windows.computeIfAbsent(client, c -> new ArrayList<>());
        List<Window> list = windows.get(client);
        synchronized (list) {
            list.add(new Window(start, start + TimeUnit.SECONDS.toNanos(seconds)));
        }
    }

    /** @return the start of a window already announced to {@code client} that strictly contains {@code nanos}, or -1 */
    private long announcedWindowStart(String client, long nanos) {
        List<Window> list = windows.get(client);
        if (list == null) {
            return -1;
        }
        synchronized (list) {
            for (Window w : list) {
                if (nanos - w.startNanos() > 0 && w.endNanos() - nanos > 0) {
                    return w.startNanos();
                }
            }
        }
        return -1;
    }

    /** @return every arrival so far, in order */
    List<Arrival> arrivals() {
        synchronized (arrivals) {
            return List.copyOf(arrivals);
        }
    }

    /** @return arrivals strictly inside a Retry-After window already announced to their client */
    int arrivalsDuringRetryAfter() {
        return duringRetryAfter.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** @return 429 answers sent */
    int rateLimitedAnswers() {
        return rateLimited.get();
    }

    /** @return 5xx answers sent */
    int errorAnswers() {
        return errors.get();
    }

    /** @return the highest concurrency seen at any arrival */
    int maxConcurrency() {
        return arrivals().stream().mapToInt(Arrival::inflight).max().orElse(0);
    }

    @Override
    public void close() {
        server.stop(0);
        responder.shutdownNow();
        handlers.shutdownNow();
    }
}
