package dev.adaptive.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.adaptive.guard.ConcurrencyGuard;
import dev.adaptive.guard.GuardLease;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@link ConcurrencyGuard} in front of your own service: a small HTTP service on 127.0.0.1
 * whose work takes 30 ms admits requests up to the guard's inferred limit and sheds the rest
 * at once with {@code 503 Retry-After: 1}, instead of queueing them. Five waves of 40
 * simultaneous requests show the limit and the shedding.
 *
 * <pre>java dev.adaptive.examples.GuardExample</pre>
 */
public final class GuardExample {

    private GuardExample() {
    }

    /**
     * @param args ignored: the example is its own server
     * @throws Exception when the server cannot start
     */
    public static void main(String[] args) throws Exception {
        ConcurrencyGuard guard = ConcurrencyGuard.builder().name("service").build();
        ScheduledExecutorService work = Executors.newSingleThreadScheduledExecutor();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        server.createContext("/", exchange -> {
            GuardLease lease = guard.acquire();                       // never waits
            if (!lease.admitted()) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                reply(exchange, 503, "overloaded");
                return;
            }
            // The work: a 30 ms downstream call, answered without holding this thread.
            work.schedule(() -> {
                try {
                    reply(exchange, 200, "done");
                } finally {
                    lease.release();                                  // latency = acquire .. release, on every path
                }
            }, 30, TimeUnit.MILLISECONDS);
        });
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/work");
            HttpClient client = HttpClient.newHttpClient();
            for (int wave = 1; wave <= 5; wave++) {
                List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    burst.add(client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                long served = burst.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 200).count();
                System.out.printf("wave %d: %d served, %d shed with 503, limit %d%n",
                        wave, served, burst.size() - served, guard.limit());
            }
            System.out.printf("guard: %s%n", guard.stats());
        } finally {
            server.stop(0);
            ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
            work.shutdownNow();
        }
    }

    private static void reply(HttpExchange exchange, int status, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (exchange; OutputStream out = exchange.getResponseBody()) {
            exchange.sendResponseHeaders(status, bytes.length);
            out.write(bytes);
        } catch (IOException e) {
            // the client went away; nothing to tell it
        }
    }
}
