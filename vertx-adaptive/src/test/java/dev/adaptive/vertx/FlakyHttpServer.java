package dev.adaptive.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

import java.util.ArrayList;
import java.util.List;

/**
 * A real HTTP server on 127.0.0.1 following the flaky API model of docs/benchmarks.md (no jitter, no
 * tail, no transient errors, no over-cap 500s, as in S3): with {@code n} requests in flight at an
 * arrival, counting the new one, {@code n > hard} is answered after 2 ms with 429 and
 * {@code Retry-After: <retryAfterSeconds>}; otherwise with 200 after
 * {@code base * (1 + (max(0, n - soft) / soft)^2)} ms.
 *
 * <p>It records every arrival and every announced window {@code [t429, t429 + retryAfter]}.
 * "Arrivals during Retry-After" counts arrivals strictly inside a window already announced to
 * the client: clients put in header {@value #SEEN_HEADER} how many rate-limit answers they had
 * processed when they sent the request, so a request sent before the client could have known of
 * a window (in flight when the 429 went out) is told apart from one sent in spite of it. Both
 * counts are kept: {@link #arrivalsInsideWindows()} (announced) and {@link #rawArrivalsInsideWindows()}.
 */
final class FlakyHttpServer {

    static final String SEEN_HEADER = "x-rate-limits-seen";

    private final Vertx vertx;
    private final int base;
    private final int soft;
    private final int hard;
    private final int retryAfterSeconds;
    private final List<long[]> windows = new ArrayList<>();
    private final List<long[]> arrivals = new ArrayList<>(); // {time, seen}
    private final List<long[]> inflightChanges = new ArrayList<>(); // {time, in flight from then on}
    private int inflight;
    private int maxInflight;
    private int served;
    private int rateLimited;
    private HttpServer server;

    FlakyHttpServer(Vertx vertx, int base, int soft, int hard, int retryAfterSeconds) {
        this.vertx = vertx;
        this.base = base;
        this.soft = soft;
        this.hard = hard;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    int start() {
        server = Await.result(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(this::handle).listen());
        return server.actualPort();
    }

    void stop() {
        Await.result(server.close());
    }

    private void handle(HttpServerRequest req) {
        if (req.path().equals("/warm")) {
            req.response().end(); // opens a connection for the client's pool; not part of the model
            return;
        }
        long now = System.nanoTime();
        String seenHeader = req.getHeader(SEEN_HEADER);
        int n;
        synchronized (this) {
            arrivals.add(new long[] {now, seenHeader == null ? Long.MAX_VALUE : Long.parseLong(seenHeader)});
            n = ++inflight;
            maxInflight = Math.max(maxInflight, n);
            inflightChanges.add(new long[] {now, n});
        }
        if (n > hard) {
            vertx.setTimer(2, id -> {
                synchronized (this) {
                    long t429 = System.nanoTime();
                    windows.add(new long[] {t429, t429 + retryAfterSeconds * 1_000_000_000L});
                    rateLimited++;
                    inflight--;
                    inflightChanges.add(new long[] {t429, inflight});
                }
                req.response().setStatusCode(429).putHeader("Retry-After", String.valueOf(retryAfterSeconds))
                        .end("slow down");
            });
            return;
        }
        double over = Math.max(0, n - soft) / (double) soft;
        long latency = Math.max(1, Math.round(base * (1 + over * over)));
        vertx.setTimer(latency, id -> {
            synchronized (this) {
                served++;
                inflight--;
                inflightChanges.add(new long[] {System.nanoTime(), inflight});
            }
            req.response().end("ok " + req.path());
        });
    }

    /** @return arrivals strictly inside a window the client had been told of when it sent them */
    synchronized int arrivalsInsideWindows() {
        int n = 0;
        for (long[] a : arrivals) {
            for (int i = 0; i < windows.size(); i++) {
                long[] w = windows.get(i);
                // Window i was the (i+1)-th rate limit announced; a client that had processed
                // i+1 of them had a pause open until at least that window's end.
                if (a[0] > w[0] && a[0] < w[1] && a[1] >= i + 1) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    /** @return arrivals strictly inside any window, including requests already on their way */
    synchronized int rawArrivalsInsideWindows() {
        int n = 0;
        for (long[] a : arrivals) {
            for (long[] w : windows) {
                if (a[0] > w[0] && a[0] < w[1]) {
                    n++;
                    break;
                }
            }
        }
        return n;
    }

    /**
     * @return the time-weighted mean of requests in flight at the server over [from, to], counting
     *         only the time it was serving something (Retry-After pauses leave it idle, and idle
     *         time would flatter the mean)
     */
    synchronized double meanBusyInflight(long from, long to) {
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

    synchronized int rateLimited() {
        return rateLimited;
    }

    synchronized int served() {
        return served;
    }

    synchronized int maxInflight() {
        return maxInflight;
    }

    synchronized int arrivals() {
        return arrivals.size();
    }
}
