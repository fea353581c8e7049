package dev.adaptive.examples;

import dev.adaptive.Adapt;
import dev.adaptive.examples.demo.Http;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.retry.RetryPolicy;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The core pool on its own: 100 GETs through {@link ItemPool}, whose concurrency tunes
 * itself and which pauses every worker on a 429's {@code Retry-After}.
 *
 * <pre>java dev.adaptive.examples.PoolExample [url-with-{i}]</pre>
 */
public final class PoolExample {

    private PoolExample() {
    }

    /**
     * @param args optional URL template; default: an embedded flaky server
     */
    public static void main(String[] args) {
        try (ExampleTarget where = ExampleTarget.fromArgs(args)) {
            HttpClient http = HttpClient.newHttpClient();
            List<Integer> ids = IntStream.range(0, 100).boxed().toList();

            AdaptiveResult<Integer, String> result = ItemPool.of(ids)
                    .withLimits(5, 1, 50)                       // initial, min, max
                    .adaptOn(Adapt.latency().errors().rateLimit())
                    .withRetryPolicy(RetryPolicy.builder().retries(3).exponential().jitter().build())
                    .withTaskTimeout(Duration.ofSeconds(10))
                    // Http.get fails the stage with RateLimitedException on a 429
                    .process((id, ctx) -> Http.get(http, where.target().uri(id)))
                    .join();

            System.out.printf("pool: %d ok, %d failed, final concurrency %d, %d rate-limit events, %d ms%n",
                    result.results().size(), result.errors().size(), result.stats().finalConcurrency(),
                    result.stats().rateLimitEvents(), result.stats().elapsed().toMillis());
        }
    }
}
