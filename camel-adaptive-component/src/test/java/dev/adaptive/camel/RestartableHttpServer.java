package dev.adaptive.camel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on 127.0.0.1 that can die and come back on the same port, for tests of an
 * outage. It answers {@code 200 ok} at once, except that it may be told to hold every request
 * after the first {@code n} of its current life unanswered, so that calls are in flight when it
 * dies; {@link #stop()} then cuts them off with their connections.
 *
 * <p>Each life ({@link #start()} to {@link #stop()}) counts its own answers. Thread-safe.
 */
final class RestartableHttpServer implements AutoCloseable {

    static {
        // The JDK server writes headers and body apart; with Nagle on, each answer on a
        // keep-alive connection waits for the client's delayed ACK. Read once per JVM, so
        // this only helps when no other server of the JDK started first.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final InetAddress loopback = InetAddress.getLoopbackAddress();
    private final List<HttpExchange> held = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstHeld = new CountDownLatch(1);
    private final Semaphore heldSignals = new Semaphore(0);
    private volatile int port;
    private volatile int answerBeforeHolding = Integer.MAX_VALUE;
    private volatile HttpServer server;
    private volatile ExecutorService handlers;
    private final AtomicInteger arrivals = new AtomicInteger();
    private final AtomicInteger answered = new AtomicInteger();
    private int lives;

    /** Starts the first life on an ephemeral port, later ones on that same port. */
    synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("already running on port " + port);
        }
        HttpServer s = HttpServer.create(new InetSocketAddress(loopback, port), 100);
        ExecutorService h = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "restartable-http-" + (lives + 1));
            t.setDaemon(true);
            return t;
        });
        s.setExecutor(h);
        s.createContext("/", this::handle);
        arrivals.set(0);
        answered.set(0);
        s.start();
        port = s.getAddress().getPort();
        handlers = h;
        server = s;
        lives++;
    }

    /** From now on, this life answers {@code n} requests and holds every later one. */
    void holdAfter(int n) {
        answerBeforeHolding = n;
    }

    /** Dies: the listening socket closes, held calls and idle keep-alive connections are cut. */
    synchronized void stop() {
        HttpServer s = server;
        if (s == null) {
            return;
        }
        server = null;
        answerBeforeHolding = Integer.MAX_VALUE;
        s.stop(0);
        for (HttpExchange ex : held) {
            ex.close();
        }
        held.clear();
        handlers.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        if (arrivals.incrementAndGet() > answerBeforeHolding) {
            held.add(ex);
            firstHeld.countDown();
            heldSignals.release();
            return;
        }
        byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(body);
        }
        answered.incrementAndGet();
    }

    /** @return a latch that opens when the first request is held */
    CountDownLatch firstHeld() {
        return firstHeld;
    }

    /**
     * @param n how many held requests to wait for, counted since the last wait
     * @param seconds the bound
     * @return whether they arrived in time
     */
    boolean awaitHeld(int n, long seconds) throws InterruptedException {
        return heldSignals.tryAcquire(n, seconds, TimeUnit.SECONDS);
    }

    /** @return requests held unanswered in this life */
    int held() {
        return held.size();
    }

    /** @return requests answered in this life */
    int answered() {
        return answered.get();
    }

    /** @return how many times it started */
    synchronized int lives() {
        return lives;
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        stop();
    }
}
