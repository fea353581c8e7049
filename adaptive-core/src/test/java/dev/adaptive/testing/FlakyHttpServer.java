package dev.adaptive.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one flaky HTTP server of the integration tests: a real JDK server on 127.0.0.1 (ephemeral
 * port) that behaves like the flaky API model of docs/benchmarks.md, shared by the modules'
 * tests through adaptive-core's test-jar.
 *
 * <p>Any path but the scripted ones below follows the model: let {@code n} be the requests in
 * flight at arrival, counting the new one. Past {@code hard}: a 429 with {@code Retry-After}
 * after 2 ms (or a 500 for the over-cap 500 share); otherwise a 200 {@code "ok"} after
 * {@code base * (1 + (max(0, n - soft) / soft)^2)} ms, times the jitter and tail factors, or a
 * 500 with the transient probability. {@link Model#holding(long)} makes it a server that holds
 * every request for a fixed time and never refuses. Every answer names the request's path in
 * its {@value #PATH_HEADER} header, so that a client can match answers to requests.
 *
 * <p>Scripted paths for single behaviours: {@code /status/{code}} always answers that status
 * (with {@code ?retryAfter=v} as header); {@code /first429/{key}} answers 429 with
 * {@code Retry-After: 1} to the first request of each key and 200 {@code "ok"} after;
 * {@code /warm} answers 200 at once and is not recorded (it opens a client's connections before
 * a measurement). {@link #rateLimitNext()} makes the next model request a 429 with
 * {@code Retry-After: 1} at once.
 *
 * <p>It records every arrival and every 429 it announces (a window
 * {@code [t429, t429 + Retry-After]}), and counts arrivals inside an announced window two ways:
 * per client ({@value #CLIENT_HEADER} header), a window announced to that client before the
 * request arrived ({@link #arrivalsDuringRetryAfter()}); or by what the client says it knew
 * ({@value #SEEN_HEADER} header: how many 429 answers it had processed when it sent the
 * request), so that a request already on its way when the 429 left is told apart from one sent
 * in spite of it ({@link #arrivalsInsideWindows()}, {@link #rawArrivalsInsideWindows()}).
 * Responses are sent from a scheduler, never by sleeping. Thread-safe; {@link #close()} stops it.
 */
public final class FlakyHttpServer implements AutoCloseable {

    /** Request header naming the client, for {@link #arrivalsDuringRetryAfter()}. */
    public static final String CLIENT_HEADER = "X-Client";

    /** Response header with the path of the request answered. */
    public static final String PATH_HEADER = "X-Path";

    /** Request header with the 429 answers the client had processed when it sent the request. */
    public static final String SEEN_HEADER = "x-rate-limits-seen";

    static {
        // The JDK server writes headers and body apart; with Nagle on, some answers wait for the
        // client's delayed ACK, 40 ms that would be the server's noise, not the model's. Read
        // once per JVM, when the JDK server first loads.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    /**
     * The model's parameters; times in milliseconds.
     *
     * @param baseMs               latency at or below {@code soft} in flight
     * @param soft                 the concurrency the latency starts to grow past
     * @param hard                 the concurrency past which requests are refused
     * @param retryAfterSeconds    the {@code Retry-After} of a refusal
     * @param jitter               latency varies by up to this share either way
     * @param tailProbability      the share of answers that take {@code tailFactor} times longer
     * @param tailFactor           how much longer a tail answer takes
     * @param transientProbability the share of answers that are a 500
     * @param overCap500Share      the share of refusals that are a 500 instead of a 429
     * @param seed                 seed of the random choices
     */
    public record Model(double baseMs, int soft, int hard, int retryAfterSeconds, double jitter,
                        double tailProbability, double tailFactor, double transientProbability,
                        double overCap500Share, long seed) {

        /**
         * @return S3 of docs/benchmarks.md: base 40 ms, soft 6, hard 12, Retry-After 1 s, nothing random
         */
        public static Model s3() {
            return new Model(40, 6, 12, 1, 0, 0, 1, 0, 0, 1);
        }

        /**
         * @param holdMillis how long every request is held before its 200
         * @return a model that answers every request after exactly that long and never refuses
         */
        public static Model holding(long holdMillis) {
            return new Model(holdMillis, Integer.MAX_VALUE, Integer.MAX_VALUE, 1, 0, 0, 1, 0, 0, 1);
        }
    }

    /**
     * One arrival.
     *
     * @param nanos           when it arrived ({@link System#nanoTime()})
     * @param inflight        requests in flight at the server, itself included
     * @param client          the {@value #CLIENT_HEADER} header, {@code "anonymous"} without one
     * @param path            the request path
     * @param dispatchedNanos the client's {@code X-Dispatched} stamp (same JVM clock), or -1
     * @param windowStart     the start of the Retry-After window announced to this client that it
     *                        arrived in, or -1
     * @param seen            the {@value #SEEN_HEADER} header, or {@link Long#MAX_VALUE} without one
     */
    public record Arrival(long nanos, int inflight, String client, String path, long dispatchedNanos,
                          long windowStart, long seen) {

        /** @return whether it arrived inside a window already announced to its client */
        public boolean duringRetryAfter() {
            return windowStart != -1;
        }
    }

    private record Window(String client, long startNanos, long endNanos) {
    }

    private final Model model;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService responder;
    private final Random random;
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger max = new AtomicInteger();
    private final List<Arrival> arrivals = new ArrayList<>();
    /** Every announced window, in the order of the 429s. */
    private final List<Window> windows = new ArrayList<>();
    /** {time, requests in flight from then on}, at every change. */
    private final List<long[]> inflightChanges = new ArrayList<>();
    private final Map<String, AtomicInteger> firstSeen = new ConcurrentHashMap<>();
    private final AtomicInteger rateLimited = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicBoolean rateLimitNext = new AtomicBoolean();

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

    /**
     * @param model the behaviour
     * @return a started server
     * @throws IOException if it cannot bind
     */
    public static FlakyHttpServer start(Model model) throws IOException {
        return new FlakyHttpServer(model);
    }

    /** @return the port it listens on */
    public int port() {
        return server.getAddress().getPort();
    }

    /**
     * @param path a path, with its query if any
     * @return {@code http://127.0.0.1:<port><path>}
     */
    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** The next model request gets 429 with {@code Retry-After: 1}, at once. */
    public void rateLimitNext() {
        rateLimitNext.set(true);
    }

    private void handle(HttpExchange ex) {
        String path = ex.getRequestURI().getPath();
        if (path.equals("/warm")) {
            respond(ex, 200, "ok".getBytes(StandardCharsets.UTF_8), null);
            return;
        }
        long now = System.nanoTime();
        String client = ex.getRequestHeaders().getFirst(CLIENT_HEADER);
        client = client == null ? "anonymous" : client;
        String stamp = ex.getRequestHeaders().getFirst("X-Dispatched");
        long dispatched = stamp == null ? -1 : Long.parseLong(stamp);
        String seenHeader = ex.getRequestHeaders().getFirst(SEEN_HEADER);
        long seen = seenHeader == null ? Long.MAX_VALUE : Long.parseLong(seenHeader.trim());
        int n;
        synchronized (this) {
            n = inflight.incrementAndGet();
            max.accumulateAndGet(n, Math::max);
            inflightChanges.add(new long[] {now, n});
            arrivals.add(new Arrival(now, n, client, path, dispatched, announcedWindowStart(client, now), seen));
        }
        if (path.startsWith("/status/")) {
            int code = Integer.parseInt(path.substring("/status/".length()));
            String query = ex.getRequestURI().getQuery();
            String retryAfter = query != null && query.startsWith("retryAfter=")
                    ? URLDecoder.decode(query.substring("retryAfter=".length()), StandardCharsets.UTF_8)
                    : null;
            later(ex, client, code, retryAfter, 1);
        } else if (path.startsWith("/first429/")) {
            boolean first = firstSeen.computeIfAbsent(path, k -> new AtomicInteger()).getAndIncrement() == 0;
            later(ex, client, first ? 429 : 200, first ? "1" : null, first ? 2 : 5);
        } else if (rateLimitNext.compareAndSet(true, false)) {
            later(ex, client, 429, "1", 0);
        } else {
            modelled(ex, client, n);
        }
    }

    private void modelled(HttpExchange ex, String client, int n) {
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
            later(ex, client, fiveHundred ? 500 : 429, fiveHundred ? null : String.valueOf(model.retryAfterSeconds()),
                    2);
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
        responder.schedule(() -> answer(ex, client, status, retryAfter), delayMs, TimeUnit.MILLISECONDS);
    }

    private void answer(HttpExchange ex, String client, int status, String retryAfter) {
        long now = System.nanoTime();
        // Counted out before the bytes leave, so the client can never see a slot freed that the
        // server still counts.
        synchronized (this) {
            if (status == 429) {
                rateLimited.incrementAndGet();
                announce(client, retryAfter, now);
            } else if (status >= 500) {
                errors.incrementAndGet();
            } else if (status == 200) {
                served.incrementAndGet();
            }
            inflightChanges.add(new long[] {now, inflight.decrementAndGet()});
        }
        respond(ex, status, (status == 200 ? "ok" : "status " + status).getBytes(StandardCharsets.UTF_8), retryAfter);
    }

    private static void respond(HttpExchange ex, int status, byte[] body, String retryAfter) {
        try {
            if (retryAfter != null) {
                ex.getResponseHeaders().add("Retry-After", retryAfter);
            }
            ex.getResponseHeaders().add(PATH_HEADER, ex.getRequestURI().getPath());
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

    /** Under the lock. HTTP-date answers open no window: only single-request tests use them. */
    private void announce(String client, String retryAfter, long now) {
        long seconds;
        try {
            seconds = Long.parseLong(retryAfter);
        } catch (NumberFormatException | NullPointerException notDelta) {
            return;
        }
        windows.add(new Window(client, now, now + TimeUnit.SECONDS.toNanos(seconds)));
    }

    /** Under the lock: the start of a window announced to {@code client} strictly containing {@code nanos}, or -1. */
    private long announcedWindowStart(String client, long nanos) {
        for (Window w : windows) {
            if (w.client().equals(client) && nanos - w.startNanos() > 0 && w.endNanos() - nanos > 0) {
                return w.startNanos();
            }
        }
        return -1;
    }

    /** @return every recorded arrival so far, in order */
    public synchronized List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    /** @return arrivals strictly inside a Retry-After window already announced to their client */
    public synchronized int arrivalsDuringRetryAfter() {
        return (int) arrivals.stream().filter(Arrival::duringRetryAfter).count();
    }

    /**
     * @return arrivals strictly inside a window the client had been told of when it sent them
     *         (by its {@value #SEEN_HEADER} header)
     */
    public synchronized int arrivalsInsideWindows() {
        int n = 0;
        for (Arrival a : arrivals) {
            for (int i = 0; i < windows.size(); i++) {
                Window w = windows.get(i);
                // Window i was the (i+1)-th rate limit announced; a client that had processed
                // i+1 of them had a pause open until at least that window's end.
                if (a.nanos() - w.startNanos() > 0 && w.endNanos() - a.nanos() > 0 && a.seen() >= i + 1) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    /** @return arrivals strictly inside any announced window, including requests already on their way */
    public synchronized int rawArrivalsInsideWindows() {
        int n = 0;
        for (Arrival a : arrivals) {
            for (Window w : windows) {
                if (a.nanos() - w.startNanos() > 0 && w.endNanos() - a.nanos() > 0) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    /**
     * @param from start of the span ({@link System#nanoTime()})
     * @param to   end of the span
     * @return the time-weighted mean of requests in flight over [from, to], counting only the
     *         time it was serving something (Retry-After pauses leave it idle, and idle time
     *         would flatter the mean)
     */
    public synchronized double meanBusyInflight(long from, long to) {
        double weighted = 0;
        long busy = 0;
        for (int i = 0; i < inflightChanges.size(); i++) {
            long start = Math.max(from, inflightChanges.get(i)[0]);
            long end = Math.min(to, i + 1 < inflightChanges.size() ? inflightChanges.get(i + 1)[0] : to);
            long n = inflightChanges.get(i)[1];
            if (end > start && n > 0) {
                weighted += (double) (end - start) * n;
                busy += end - start;
            }
        }
        return weighted / Math.max(1, busy);
    }

    /** @return 429 answers sent */
    public int rateLimitedAnswers() {
        return rateLimited.get();
    }

    /** @return 5xx answers sent */
    public int errorAnswers() {
        return errors.get();
    }

    /** @return 200 answers sent (the {@code /warm} ones aside) */
    public int served() {
        return served.get();
    }

    /** @return requests in flight now */
    public int inflight() {
        return inflight.get();
    }

    /** @return the most requests in flight at once since the start or the last {@link #resetMax()} */
    public int maxInflight() {
        return max.get();
    }

    /** Starts a new measurement of {@link #maxInflight()} from what is in flight now. */
    public void resetMax() {
        max.set(inflight.get());
    }

    /** @return the highest concurrency seen at any recorded arrival */
    public int maxConcurrency() {
        return arrivals().stream().mapToInt(Arrival::inflight).max().orElse(0);
    }

    @Override
    public void close() {
        server.stop(0);
        responder.shutdownNow();
        handlers.shutdownNow();
    }
}
