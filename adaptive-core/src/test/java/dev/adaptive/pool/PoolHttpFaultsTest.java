package dev.adaptive.pool;

import dev.adaptive.RateLimitedException;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults with real parts on loopback: a {@link FlakyHttpServer} that dies mid-run and comes back on
 * the same port, and a slow-loris socket that accepts and never answers. The pool calls them with
 * {@code java.net.http}. Every item ends (succeeded after recovery, or an error entry with its
 * cause); none is lost and none hangs. Bounded: a few hundred requests, generous waits that only
 * guard against a hang.
 */
class PoolHttpFaultsTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void theServerDiesMidRunAndComesBackOnTheSamePort() throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        ScheduledExecutorService chaos = Executors.newSingleThreadScheduledExecutor();
        try (FlakyHttpServer server = FlakyHttpServer.builder(FlakyModel.holding(1))
                .okBody(path -> "item " + path.substring(path.lastIndexOf('/') + 1)).start()) {
            int port = server.port();
            int n = 300;
            // The 60th request is held (it gets no answer) and the server dies with it; it comes
            // back on the same port 500 ms later. Triggered by the request itself, so it cannot
            // come too late.
            server.holdAfter(59);
            CompletableFuture<Void> killed = new CompletableFuture<>();
            server.whenHeld(1).thenRun(() -> chaos.execute(() -> {
                server.stop();
                chaos.schedule(() -> {
                    try {
                        server.restart();
                        killed.complete(null);
                    } catch (RuntimeException e) {
                        killed.completeExceptionally(e);
                    }
                }, 500, TimeUnit.MILLISECONDS);
            }));
            PoolRun<AdaptiveResult<Integer, String>> run = ItemPool.of(IntStream.range(0, n).boxed().toList())
                    .withLimits(4, 1, 16)
                    .withRetryPolicy(RetryPolicy.builder().retries(6).exponential().minDelay(Duration.ofMillis(50))
                            .maxDelay(Duration.ofMillis(400)).build())
                    .withTaskTimeout(Duration.ofSeconds(5))
                    .process((i, ctx) -> get(client, port, "/item/" + i, ctx.cancellation()::onCancel));
            AdaptiveResult<Integer, String> r = run.toCompletableFuture().get(120, TimeUnit.SECONDS);

            killed.get(30, TimeUnit.SECONDS); // the restart may come after the last item ended
            assertThat(server.lives()).isEqualTo(2);
            Set<Long> seen = new HashSet<>();
            r.successes().forEach(x -> assertThat(seen.add(x.index())).isTrue());
            r.errors().forEach(x -> assertThat(seen.add(x.index())).isTrue());
            assertThat(seen).hasSize(n);
            r.successes().forEach(x -> assertThat(x.value()).isEqualTo("item " + x.item()));
            // With six retries over ~1.5 s of backoff and a 500 ms outage, everything recovers;
            // an item that did not would still be here, as an error with its cause.
            r.errors().forEach(x -> assertThat(x.error()).isNotNull());
            assertThat(r.successes().size()).as("errors: %s", r.errors()).isEqualTo(n);
            assertThat(r.stats().congestionEvents()).as("the outage was seen").isPositive();
            assertThat(run.limiter().inflight()).isZero();
        } finally {
            chaos.shutdownNow();
        }
    }

    @Test
    void anItemThatCannotRecoverEndsWithItsCause() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, LOOPBACK)) {
            port = probe.getLocalPort(); // closed at once: nothing listens there any more
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        int p = port;
        AdaptiveResult<Integer, String> r = ItemPool.of(1, 2, 3)
                .withRetryPolicy(RetryPolicy.builder().retries(2).minDelay(Duration.ofMillis(10)).maxDelay(Duration.ofMillis(20)).build())
                .process((i, ctx) -> get(client, p, "/" + i, ctx.cancellation()::onCancel))
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertThat(r.successes()).isEmpty();
        assertThat(r.errors()).hasSize(3).allSatisfy(e -> {
            assertThat(e.attempts()).isEqualTo(3);
            assertThat(e.error()).isInstanceOf(IOException.class);
        });
    }

    @Test
    void slowLorisDownstreamTaskTimeoutsFreeTheSlots() throws Exception {
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket loris = new ServerSocket(0, 50, LOOPBACK)) {
            Thread acceptor = new Thread(() -> {
                while (!loris.isClosed()) {
                    try {
                        held.add(loris.accept()); // accept, read nothing, answer never
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "slow-loris");
            acceptor.setDaemon(true);
            acceptor.start();
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            int n = 24;
            PoolRun<AdaptiveResult<Integer, String>> run = ItemPool.of(IntStream.range(0, n).boxed().toList())
                    .withAlgorithm(FixedLimit.of(4)) // a leaked slot would stall the run after four
                    .withRetryPolicy(RetryPolicy.builder().retries(1).minDelay(Duration.ofMillis(10)).maxDelay(Duration.ofMillis(20)).build())
                    .withTaskTimeout(Duration.ofMillis(300))
                    // Every attempt times out: an outage, whose one probe at a time would hide a
                    // leaked slot (and take a minute); this test is about the slots.
                    .withOutageProbe(Duration.ZERO)
                    .process((i, ctx) -> get(client, loris.getLocalPort(), "/" + i, ctx.cancellation()::onCancel));
            AdaptiveResult<Integer, String> r = run.toCompletableFuture().get(120, TimeUnit.SECONDS);

            assertThat(r.successes()).isEmpty();
            assertThat(r.errors()).hasSize(n).allSatisfy(e -> {
                assertThat(e.error()).isInstanceOf(TaskTimeoutException.class);
                assertThat(e.attempts()).isEqualTo(2);
            });
            assertThat(r.stats().totalAttempts()).isEqualTo(2L * n);
            assertThat(r.stats().maxConcurrencyReached()).isLessThanOrEqualTo(4);
            assertThat(run.limiter().inflight()).isZero();
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    /** GET, cancelled when the attempt's cancellation fires; 429 becomes RateLimitedException. */
    static CompletableFuture<String> get(HttpClient client, int port, String path,
                                         java.util.function.Consumer<Runnable> onCancel) {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build();
        CompletableFuture<HttpResponse<String>> call = client.sendAsync(req, HttpResponse.BodyHandlers.ofString());
        onCancel.accept(() -> call.cancel(true));
        return call.thenApply(resp -> {
            if (resp.statusCode() == 429) {
                throw new RateLimitedException("429", resp.headers().firstValue("Retry-After").orElse(null));
            }
            if (resp.statusCode() != 200) {
                throw new IllegalStateException("HTTP " + resp.statusCode());
            }
            return resp.body();
        });
    }
}
