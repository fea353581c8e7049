package dev.adaptive.examples.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP server on 127.0.0.1 (ephemeral port) that behaves like a rate-limited API, following
 * a {@link FlakyModel}: latency grows with the requests in flight, and past the hard cap it
 * answers {@code 429} with {@code Retry-After}. It counts the requests that arrive inside a
 * Retry-After window it has already announced, which a well-behaved client never does.
 *
 * <p>Every path answers; {@code GET /items/42} answers {@code item 42}. The server treats all
 * its callers as one client, so {@link #reset()} it between runs that must be compared.
 *
 * <p>Thread-safe. {@link #close()} stops it and its threads (all daemon).
 */
public final class FlakyServer implements AutoCloseable {

    private static final long REFUSAL_DELAY_MS = 2;
    private static final long NONE = Long.MIN_VALUE;

    static {
        // The JDK server writes headers and body in two segments; without TCP_NODELAY, Nagle's
        // algorithm and the client's delayed ACK add ~40 ms to every answer, which would
        // double the model's base latency. Read once, when the server classes initialise.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final FlakyModel model;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService replies;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong arrivals = new AtomicLong();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicLong duringWindow = new AtomicLong();
    // End of the latest announced window; windows are all the same length, so the latest end
    // covers every earlier one.
    private final AtomicLong announcedUntil = new AtomicLong(NONE);

    private FlakyServer(FlakyModel model) throws IOException {
        this.model = model;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        this.handlers = Executors.newFixedThreadPool(4, daemon("flaky-http"));
        this.replies = Executors.newScheduledThreadPool(2, daemon("flaky-reply"));
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Starts a server on an ephemeral port of 127.0.0.1.
     *
     * @param model the latency and refusal model
     * @return the running server
     */
    public static FlakyServer start(FlakyModel model) {
        try {
            return new FlakyServer(model);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the flaky server", e);
        }
    }

    /** @return the base URI, for example {@code http://127.0.0.1:41234} */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** @return the model this server follows */
    public FlakyModel model() {
        return model;
    }

    /** @return the counters since the last {@link #reset()} */
    public ServerCounters counters() {
        return new ServerCounters(arrivals.get(), ok.get(), rateLimited.get(), duringWindow.get(), peak.get());
    }

    /** Zeroes the counters and forgets the announced windows, for the next client. */
    public void reset() {
        arrivals.set(0);
        ok.set(0);
        rateLimited.set(0);
        duringWindow.set(0);
        peak.set(inflight.get());
        announcedUntil.set(NONE);
    }

    private void handle(HttpExchange exchange) {
        long now = System.nanoTime();
        arrivals.incrementAndGet();
        long until = announcedUntil.get();
        if (until != NONE && now - until < 0) {
            duringWindow.incrementAndGet();
        }
        int n = inflight.incrementAndGet();
        peak.accumulateAndGet(n, Math::max);
        if (model.overHardCap(n)) {
            replies.schedule(() -> refuse(exchange), REFUSAL_DELAY_MS, TimeUnit.MILLISECONDS);
        } else {
            long delay = model.latency(n, ThreadLocalRandom.current().nextDouble()).toNanos();
            replies.schedule(() -> answer(exchange), delay, TimeUnit.NANOSECONDS);
        }
    }

    private void refuse(HttpExchange exchange) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(model.retryAfterSeconds());
        announcedUntil.accumulateAndGet(until, (a, b) -> a == NONE || a - b < 0 ? b : a);
        rateLimited.incrementAndGet();
        exchange.getResponseHeaders().set("Retry-After", Integer.toString(model.retryAfterSeconds()));
        send(exchange, 429, "too many requests\n");
    }

    private void answer(HttpExchange exchange) {
        ok.incrementAndGet();
        String path = exchange.getRequestURI().getPath();
        String body = path.startsWith("/items/") ? "item " + path.substring("/items/".length()) : "ok " + path;
        send(exchange, 200, body);
    }

    private void send(HttpExchange exchange, int status, String body) {
        // The slot is freed before the bytes go out: the client may send its next request as
        // soon as it reads this answer, and must not find it still counted.
        inflight.decrementAndGet();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (exchange; OutputStream out = exchange.getResponseBody()) {
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(status, bytes.length);
            out.write(bytes);
        } catch (IOException | RuntimeException e) {
            // The client went away (a timeout, a cancelled attempt): nothing to tell it.
        }
    }

    @Override
    public void close() {
        server.stop(0);
        replies.shutdownNow();
        handlers.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
