package dev.adaptive.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The flaky API on a real HTTP server: a JDK {@link HttpServer} on 127.0.0.1 (an ephemeral port
 * unless one is asked for) that answers by a {@link FlakyDownstream} running its
 * {@link FlakyModel} on the wall clock. Answers are sent from a timer, never by a sleeping
 * thread.
 *
 * <p>Any path but the scripted ones below follows the model: a 200 after the model's latency
 * (body {@code "ok"} by default, see {@link Builder#okBody(UnaryOperator)}), a 429 with
 * {@code Retry-After} in whole seconds rounded up, or a 500. With a quota
 * ({@link FlakyDownstream#withQuota(int, Duration) downstream().withQuota}) every 200 and every
 * 429 of the quota itself announces it as {@code RateLimit: "default";r=<remaining>;t=<seconds to
 * reset>} (a 429 of the hard cap or of a rate does not). Every answer
 * names the request's path in its {@value #PATH_HEADER} header.
 *
 * <p>Scripted paths: {@code /status/{code}} always answers that status (with
 * {@code ?retryAfter=v} as its header); {@code /first429/{key}} answers 429 with
 * {@code Retry-After: 1} to the first request of each key and 200 after; {@code /warm} answers
 * 200 at once and is not recorded (it opens a client's connections before a measurement).
 * {@link #rateLimitNext()} makes the next model request a 429 with {@code Retry-After: 1} at once.
 *
 * <p>Request headers it reads: {@value #CLIENT_HEADER} (whose Retry-After windows an arrival is
 * judged by; one anonymous client without it), {@value #READ_429S_HEADER} (the 429 answers the
 * client had read when it sent the request), {@value #ATTEMPT_HEADER} (which attempt of its item
 * the request is, for the count of first attempts in an outage) and {@value #DISPATCHED_HEADER}
 * (the client's {@link System#nanoTime()} at dispatch).
 *
 * <p>Outages: {@link #stop()} closes the listening socket and cuts every connection, held ones
 * included; {@link #restart()} listens again on the same port. {@link #holdAfter(int)} makes it
 * accept requests and never answer them (a hung or slow-loris downstream); held requests do not
 * reach the model. Thread-safe; {@link #close()} stops it and its threads (all daemon).
 */
public final class FlakyHttpServer implements AutoCloseable {

    /** Request header naming the client, for the per-client Retry-After windows. */
    public static final String CLIENT_HEADER = "X-Client";

    /** Request header with the 429 answers the client had read when it sent the request. */
    public static final String READ_429S_HEADER = "X-Read-429s";

    /** Request header with the client's {@link System#nanoTime()} when it dispatched the request. */
    public static final String DISPATCHED_HEADER = "X-Dispatched";

    /** Response header with the path of the request answered. */
    public static final String PATH_HEADER = "X-Path";

    /**
     * Request header in which a client says which attempt of its item a request is, 1 for the
     * first; lets the model tell first attempts from retries among the arrivals in an outage.
     */
    public static final String ATTEMPT_HEADER = "X-Attempt";

    static {
        // The JDK server writes headers and body apart; with Nagle on, some answers wait for the
        // client's delayed ACK, 40 ms that would be the server's noise, not the model's. Read
        // once per JVM, when the JDK server first loads.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private static final Duration SCRIPTED_REFUSAL = FlakyModel.REFUSAL_LATENCY;
    private static final Duration SCRIPTED_STATUS = Duration.ofMillis(1);
    private static final Duration SCRIPTED_OK = Duration.ofMillis(5);

    private final FlakyDownstream downstream;
    private final UnaryOperator<String> okBody;
    private final ExecutorService handlers;
    private final ScheduledThreadPoolExecutor responder;
    private final Map<String, AtomicInteger> firstSeen = new ConcurrentHashMap<>();
    private final AtomicBoolean rateLimitNext = new AtomicBoolean();
    /** Requests still answered before every later one is held; {@link Long#MAX_VALUE}: never hold. */
    private final AtomicLong answerBeforeHolding = new AtomicLong(Long.MAX_VALUE);
    private final List<HttpExchange> heldExchanges = new ArrayList<>();
    private final List<String> heldPaths = new ArrayList<>();
    private final Counter arrivedCount = new Counter();
    private final Counter heldCount = new Counter();
    private final int port;
    private HttpServer server;
    private int lives;

    private FlakyHttpServer(Builder b) throws IOException {
        this.okBody = b.okBody;
        this.handlers = Executors.newFixedThreadPool(4, r -> daemon(r, "flaky-http"));
        this.responder = new ScheduledThreadPoolExecutor(2, r -> daemon(r, "flaky-http-responder"));
        this.downstream = new FlakyDownstream(b.model, System::nanoTime,
                (task, delayNanos) -> responder.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS),
                b.seed, true);
        try {
            // Under the monitor, as in restart(): a handler reads it there to tell a live server
            // from a stopped one.
            synchronized (this) {
                this.server = listen(b.port);
            }
        } catch (IOException e) {
            handlers.shutdownNow();
            responder.shutdownNow();
            throw e;
        }
        this.port = server.getAddress().getPort();
        this.lives = 1;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private HttpServer listen(int onPort) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 256);
        s.setExecutor(handlers);
        s.createContext("/", this::handle);
        s.start();
        return s;
    }

    /**
     * @param model the behaviour
     * @return a started server on an ephemeral port, seed 1, {@code "ok"} bodies
     * @throws UncheckedIOException if it cannot bind
     */
    public static FlakyHttpServer start(FlakyModel model) {
        return builder(model).start();
    }

    /**
     * @param model the behaviour
     * @return a builder of a server on that model; defaults: an ephemeral port, seed 1,
     *         {@code "ok"} bodies
     */
    public static Builder builder(FlakyModel model) {
        return new Builder(model);
    }

    /**
     * How a {@link FlakyHttpServer} starts. Defaults: an ephemeral port, seed 1, every 200 with
     * the body {@code "ok"}. Not thread-safe; {@link #start()} may be called more than once.
     */
    public static final class Builder {
        private final FlakyModel model;
        private int port;
        private long seed = 1;
        private UnaryOperator<String> okBody = path -> "ok";

        private Builder(FlakyModel model) {
            this.model = Objects.requireNonNull(model, "model");
        }

        /**
         * @param port the port to listen on, 0 (the default) for an ephemeral one
         * @return this
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be in [0, 65535]: " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * @param seed seed of the model's random choices; 1 by default
         * @return this
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * @param body the body of a 200 to the request of that path; {@code "ok"} by default
         * @return this
         */
        public Builder okBody(UnaryOperator<String> body) {
            this.okBody = Objects.requireNonNull(body, "body");
            return this;
        }

        /**
         * @return a started server
         * @throws UncheckedIOException if it cannot bind
         */
        public FlakyHttpServer start() {
            try {
                return new FlakyHttpServer(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the flaky HTTP server on port " + port, e);
            }
        }
    }

    /** @return the port it listens on, the same in every life */
    public int port() {
        return port;
    }

    /** @return the base URI, {@code http://127.0.0.1:<port>} */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /**
     * @param path a path, with its query if any
     * @return {@code http://127.0.0.1:<port><path>}
     */
    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** @return the model behind the server, to add a quota or an outage before the first request */
    public FlakyDownstream downstream() {
        return downstream;
    }

    /** The next model request gets 429 with {@code Retry-After: 1}, at once. */
    public void rateLimitNext() {
        rateLimitNext.set(true);
    }

    /**
     * From now on the server answers {@code n} more requests and holds every later one: it reads
     * it and never answers, until {@link #stop()} cuts its connection.
     *
     * @param n requests answered before holding starts, at least 0
     */
    public void holdAfter(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0: " + n);
        }
        answerBeforeHolding.set(n);
    }

    /**
     * @param hold {@code true}: hold every request from now on ({@code holdAfter(0)});
     *             {@code false}: answer every request from now on (those held stay held)
     */
    public void holding(boolean hold) {
        answerBeforeHolding.set(hold ? 0 : Long.MAX_VALUE);
    }

    /**
     * Dies: the listening socket closes, held requests and idle keep-alive connections are cut,
     * and holding ends. Does nothing when already stopped.
     */
    public synchronized void stop() {
        HttpServer s = server;
        if (s == null) {
            return;
        }
        server = null;
        // Stop listening before anything held lets go: a client cut off from a held request
        // sends its next one at once, and a server still listening would answer it (and count
        // it) on a connection the stop then cuts, so the client would retry an answer the server
        // had already given. Requests that arrive meanwhile are held, and find this life over.
        s.stop(0);
        answerBeforeHolding.set(Long.MAX_VALUE);
        for (HttpExchange ex : heldExchanges) {
            ex.close();
        }
        heldExchanges.clear();
    }

    /**
     * Comes back on the same port.
     *
     * @throws IllegalStateException if it is running
     * @throws UncheckedIOException  if the port cannot be bound again
     */
    public synchronized void restart() {
        if (server != null) {
            throw new IllegalStateException("already running on port " + port);
        }
        try {
            server = listen(port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen again on port " + port, e);
        }
        lives++;
    }

    /** @return how many times it started listening, restarts included */
    public synchronized int lives() {
        return lives;
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        if (path.equals("/warm")) {
            respond(ex, new Answer.Scripted(200, null));
            return;
        }
        if (answerBeforeHolding.getAndUpdate(n -> n > 0 && n != Long.MAX_VALUE ? n - 1 : n) == 0) {
            synchronized (this) {
                if (server == null) {
                    // Arrived as this life of the server ended: cut, never answered or counted.
                    ex.close();
                    return;
                }
                heldExchanges.add(ex);
                heldPaths.add(path);
            }
            arrivedCount.increment();
            heldCount.increment();
            return;
        }
        ex.getRequestBody().readAllBytes();
        arrivedCount.increment();
        Request request = new Request(header(ex, CLIENT_HEADER, Request.ANONYMOUS), path,
                number(header(ex, READ_429S_HEADER, null)),
                (int) Math.max(0, Math.min(Integer.MAX_VALUE, number(header(ex, ATTEMPT_HEADER, null)))),
                number(header(ex, DISPATCHED_HEADER, null)));
        downstream(request, path, ex.getRequestURI().getQuery())
                .whenComplete((answer, error) -> respond(ex, answer == null ? new Answer.Scripted(500, null) : answer));
    }

    private CompletableFuture<Answer> downstream(Request request, String path, String query) {
        if (path.startsWith("/status/")) {
            int code = Integer.parseInt(path.substring("/status/".length()));
            String retryAfter = query != null && query.startsWith("retryAfter=")
                    ? URLDecoder.decode(query.substring("retryAfter=".length()), StandardCharsets.UTF_8)
                    : null;
            return downstream.call(request, new Answer.Scripted(code, retryAfter), SCRIPTED_STATUS);
        }
        if (path.startsWith("/first429/")) {
            boolean first = firstSeen.computeIfAbsent(path, k -> new AtomicInteger()).getAndIncrement() == 0;
            return first
                    ? downstream.call(request, new Answer.Scripted(429, "1"), SCRIPTED_REFUSAL)
                    : downstream.call(request, new Answer.Scripted(200, null), SCRIPTED_OK);
        }
        if (rateLimitNext.compareAndSet(true, false)) {
            return downstream.call(request, new Answer.Scripted(429, "1"), Duration.ZERO);
        }
        return downstream.call(request);
    }

    private static String header(HttpExchange ex, String name, String otherwise) {
        String value = ex.getRequestHeaders().getFirst(name);
        return value == null ? otherwise : value.trim();
    }

    private static long number(String header) {
        try {
            return header == null ? -1 : Long.parseLong(header);
        } catch (NumberFormatException unreadable) {
            return -1;
        }
    }

    private void respond(HttpExchange ex, Answer answer) {
        String retryAfter = null;
        Answer.Quota quota = null;
        if (answer instanceof Answer.TooManyRequests t) {
            retryAfter = t.retryAfter() == null ? null
                    : Long.toString(Math.max(1, (t.retryAfter().toMillis() + 999) / 1000));
            quota = t.quota();
        } else if (answer instanceof Answer.Ok o) {
            quota = o.quota();
        } else if (answer instanceof Answer.Scripted s) {
            retryAfter = s.retryAfter();
        }
        int status = answer.status();
        String path = ex.getRequestURI().getPath();
        byte[] body = (status == 200 ? okBody.apply(path) : "status " + status).getBytes(StandardCharsets.UTF_8);
        try (ex) {
            if (retryAfter != null) {
                ex.getResponseHeaders().set("Retry-After", retryAfter);
            }
            if (quota != null) {
                // The reset in whole seconds rounded up, as servers do, so that a client never
                // resumes before the window renews.
                long seconds = (quota.reset().toMillis() + 999) / 1000;
                ex.getResponseHeaders().set("RateLimit", "\"default\";r=" + quota.remaining() + ";t=" + seconds);
            }
            ex.getResponseHeaders().set(PATH_HEADER, path);
            ex.sendResponseHeaders(status, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        } catch (IOException | RuntimeException clientWentAway) {
            // A timeout, a cancelled attempt, or this life of the server ended: the model has
            // counted the answer already, and there is nobody to tell.
        }
    }

    /** @return every recorded arrival at the model so far, in order (held and {@code /warm} requests aside) */
    public List<Arrival> arrivals() {
        return downstream.arrivals();
    }

    /**
     * @param n a number of requests
     * @return completes once {@code n} requests (answered or held, {@code /warm} aside) have
     *         arrived since the start
     */
    public CompletableFuture<Void> whenArrived(int n) {
        return arrivedCount.when(n);
    }

    /**
     * @param n a number of held requests
     * @return completes once {@code n} requests in all have been held since the start
     */
    public CompletableFuture<Void> whenHeld(int n) {
        return heldCount.when(n);
    }

    /**
     * @param n       a number of held requests
     * @param timeout the bound
     * @return whether {@code n} requests in all had been held since the start within the bound
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitHeld(int n, Duration timeout) throws InterruptedException {
        try {
            heldCount.when(n).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException notYet) {
            return false;
        } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** @return the paths of the requests held since the start or the last {@link #reset()}, in arrival order */
    public synchronized List<String> heldPaths() {
        return List.copyOf(heldPaths);
    }

    /** @return what the model saw since the start or the last {@link #reset()} */
    public DownstreamStats stats() {
        return downstream.stats();
    }

    /** @return arrivals strictly inside a Retry-After window already announced to their client */
    public int arrivalsDuringRetryAfter() {
        return (int) stats().arrivalsDuringRetryAfter();
    }

    /**
     * @return arrivals strictly inside a window whose 429 the client had read when it sent them
     *         (by its {@value #READ_429S_HEADER} header); -1 when no request carried the header
     */
    public int arrivalsInsideWindows() {
        return (int) stats().arrivalsAfterClientKnew();
    }

    /** @return arrivals strictly inside any announced window, requests already on their way included */
    public int rawArrivalsInsideWindows() {
        return (int) downstream.rawArrivalsDuringRetryAfter();
    }

    /**
     * @param from start of the span ({@link System#nanoTime()})
     * @param to   end of the span
     * @return the time-weighted mean of requests in flight over [from, to] while something was in
     *         flight
     */
    public double meanBusyInflight(long from, long to) {
        return downstream.meanBusyInflight(from, to);
    }

    /** @return 429 answers sent */
    public int rateLimitedAnswers() {
        return (int) stats().tooMany();
    }

    /** @return 5xx answers sent */
    public int errorAnswers() {
        return (int) stats().serverErrors();
    }

    /** @return 200 answers sent (the {@code /warm} ones aside) */
    public int served() {
        return (int) stats().ok();
    }

    /** @return requests in flight at the model now (held ones aside) */
    public int inflight() {
        return downstream.inflight();
    }

    /** @return the most requests in flight at once since the start or the last {@link #resetMax()} */
    public int maxInflight() {
        return stats().peak();
    }

    /** Starts a new measurement of {@link #maxInflight()} from what is in flight now. */
    public void resetMax() {
        downstream.resetPeak();
    }

    /** @return the highest concurrency seen at any recorded arrival */
    public int maxConcurrency() {
        return arrivals().stream().mapToInt(Arrival::inflight).max().orElse(0);
    }

    /** Zeroes the counters and forgets the arrivals, the windows and the held paths, for the next client. */
    public void reset() {
        downstream.reset();
        synchronized (this) {
            heldPaths.clear();
        }
    }

    @Override
    public void close() {
        stop();
        responder.shutdownNow();
        handlers.shutdownNow();
    }

    /** A count that futures can wait on. */
    private static final class Counter {
        private final List<Map.Entry<Integer, CompletableFuture<Void>>> watches = new ArrayList<>();
        private int count;

        void increment() {
            List<CompletableFuture<Void>> reached = new ArrayList<>();
            synchronized (this) {
                count++;
                watches.removeIf(w -> {
                    if (w.getKey() <= count) {
                        reached.add(w.getValue());
                        return true;
                    }
                    return false;
                });
            }
            reached.forEach(f -> f.complete(null));
        }

        synchronized CompletableFuture<Void> when(int n) {
            if (count >= n) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> f = new CompletableFuture<>();
            watches.add(Map.entry(n, f));
            return f;
        }
    }
}
