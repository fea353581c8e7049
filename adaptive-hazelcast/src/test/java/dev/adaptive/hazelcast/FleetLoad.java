package dev.adaptive.hazelcast;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.Outcome;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One member's traffic: {@code callers} loops, each waiting for a lease from the member's
 * {@link Limiter}, sending one GET to the backend through the JDK's asynchronous HTTP client,
 * and releasing the lease with the outcome (429 with {@code Retry-After} as rate-limited), until
 * stopped. Nothing blocks a thread.
 */
final class FleetLoad {

    private final Limiter limiter;
    private final HttpClient http;
    private final URI uri;
    private volatile boolean stopped;
    private final AtomicInteger running = new AtomicInteger();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    FleetLoad(Limiter limiter, HttpClient http, int port, String path) {
        this.limiter = limiter;
        this.http = http;
        this.uri = URI.create("http://127.0.0.1:" + port + path);
    }

    static HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    FleetLoad start(int callers) {
        running.addAndGet(callers);
        for (int i = 0; i < callers; i++) {
            next();
        }
        return this;
    }

    private void next() {
        if (stopped) {
            if (running.decrementAndGet() == 0) {
                finished.complete(null);
            }
            return;
        }
        limiter.acquire().whenComplete((lease, error) -> {
            if (error != null) {
                failed.incrementAndGet(); // the limiter was stopped
                stopped = true;
                next();
            } else {
                call(lease);
            }
        });
    }

    private void call(Lease lease) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build();
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
            if (error != null) {
                failed.incrementAndGet();
                lease.release(Outcome.DROPPED);
            } else if (response.statusCode() == 429) {
                rateLimited.incrementAndGet();
                long seconds = response.headers().firstValueAsLong("Retry-After").orElse(1);
                lease.release(Outcome.rateLimited(Duration.ofSeconds(seconds)));
            } else {
                ok.incrementAndGet();
                lease.release(Outcome.SUCCESS);
            }
            next();
        });
    }

    /** Stops sending; the stage completes when every caller has had its last answer. */
    CompletableFuture<Void> stop() {
        stopped = true;
        return finished;
    }

    long ok() {
        return ok.get();
    }

    long rateLimited() {
        return rateLimited.get();
    }

    long failed() {
        return failed.get();
    }
}
