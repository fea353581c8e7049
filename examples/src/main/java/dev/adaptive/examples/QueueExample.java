package dev.adaptive.examples;

import dev.adaptive.examples.demo.Http;
import dev.adaptive.limit.Vegas;
import dev.adaptive.queue.ThrottledQueue;
import dev.adaptive.retry.Backoff;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@link ThrottledQueue} for an API that publishes a rate ("at most 100 requests a second"):
 * 60 GETs started at an adaptive rate in [20, 100] per second, with an adaptive concurrency
 * limit on top and the queue held on a 429's {@code Retry-After}.
 *
 * <pre>java dev.adaptive.examples.QueueExample [url-with-{i}]</pre>
 */
public final class QueueExample {

    private QueueExample() {
    }

    /**
     * @param args optional URL template; default: an embedded flaky server
     */
    public static void main(String[] args) {
        try (ExampleTarget where = ExampleTarget.fromArgs(args)) {
            HttpClient http = HttpClient.newHttpClient();
            ThrottledQueue queue = ThrottledQueue.builder()
                    .name("items")
                    .minRate(20).maxRate(100).interval(Duration.ofSeconds(1))
                    .concurrencyLimit(Vegas.builder().initialLimit(4).maxLimit(20).build())
                    .retries(2)
                    .retryBackoff(Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(2)).withJitter(0.2))
                    .build();

            long start = System.nanoTime();
            List<CompletableFuture<String>> bodies = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                int id = i;
                bodies.add(queue.submit(ctx -> Http.get(http, where.target().uri(id))));
            }
            queue.awaitIdle().join();
            queue.stop();

            long ok = bodies.stream().filter(f -> !f.isCompletedExceptionally()).count();
            System.out.printf("queue: %d ok, %d failed, rate now %d per second, %d ms%n",
                    ok, bodies.size() - ok, queue.rate(), (System.nanoTime() - start) / 1_000_000);
        }
    }
}
