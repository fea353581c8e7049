package dev.adaptive.hazelcast;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real HTTP server on 127.0.0.1 (ephemeral port) that holds every request for a fixed time
 * and counts what it holds: the fleet's calls in flight as the backend sees them. A request
 * leaves the count before its response is written, so a client has released nothing the count
 * still holds. On demand it answers the next request with 429 and {@code Retry-After: 1}.
 * Responses are sent from a scheduler, never by sleeping. Thread-safe.
 */
final class HoldingServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService responder = Executors.newSingleThreadScheduledExecutor();
    private final long holdMillis;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger max = new AtomicInteger();
    private final AtomicLong served = new AtomicLong();
    private final AtomicBoolean rateLimitNext = new AtomicBoolean();

    private HoldingServer(long holdMillis) throws IOException {
        this.holdMillis = holdMillis;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 200);
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    static HoldingServer start(long holdMillis) throws IOException {
        return new HoldingServer(holdMillis);
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** @return the most requests held at once since the last {@link #resetMax()} */
    int maxInflight() {
        return max.get();
    }

    int inflight() {
        return inflight.get();
    }

    long served() {
        return served.get();
    }

    /** Starts a new measurement of {@link #maxInflight()} from what is held now. */
    void resetMax() {
        max.set(inflight.get());
    }

    /** The next request gets 429 with {@code Retry-After: 1}. */
    void rateLimitNext() {
        rateLimitNext.set(true);
    }

    private void handle(HttpExchange exchange) {
        int now = inflight.incrementAndGet();
        max.accumulateAndGet(now, Math::max);
        if (rateLimitNext.compareAndSet(true, false)) {
            inflight.decrementAndGet();
            exchange.getResponseHeaders().add("Retry-After", "1");
            respond(exchange, 429, "slow down");
            return;
        }
        responder.schedule(() -> {
            inflight.decrementAndGet();
            served.incrementAndGet();
            respond(exchange, 200, "ok");
        }, holdMillis, TimeUnit.MILLISECONDS);
    }

    private static void respond(HttpExchange exchange, int status, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (OutputStream out = exchange.getResponseBody()) {
            exchange.sendResponseHeaders(status, bytes.length);
            out.write(bytes);
        } catch (IOException clientGone) {
            // the client gave up; nothing to count
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        responder.shutdownNow();
        handlers.shutdownNow();
    }
}
