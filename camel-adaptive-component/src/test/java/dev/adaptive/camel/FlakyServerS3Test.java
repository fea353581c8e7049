package dev.adaptive.camel;

import dev.adaptive.testing.Arrival;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario S3 of docs/benchmarks.md through the real camel-http component: 200 exchanges against a
 * loopback server with base 40 ms, soft cap 6, hard cap 12 and {@code Retry-After: 1} past it,
 * all sent at once from one thread into {@code adaptive:s3?maxLimit=50} (Vegas, initial 5).
 */
class FlakyServerS3Test extends CamelTestSupport {

    private static final int ITEMS = 200;
    private static final int HARD = 12;
    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.s3());
    private final PauseRecorder pauses = new PauseRecorder();

    @Override
    protected void bindToRegistry(Registry registry) {
        registry.bind("pauses", pauses);
    }

    @Override
    protected RoutesBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                // camel-http's client would otherwise retry a 429 by itself, blind to the pool.
                getContext().getComponent("http", HttpComponent.class).setAutomaticRetriesDisabled(true);
                // Failed attempts go straight back to the pool, which retries them; the caller's
                // route sees only the final outcome.
                from("adaptive:s3").errorHandler(noErrorHandler())
                        .setHeader("X-Client", constant("s3"))
                        .setHeader("X-Dispatched", exchangeProperty(AdaptiveConstants.DISPATCHED))
                        .to(server.url("/flaky"))
                        .convertBodyTo(String.class);
            }
        };
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyExchangeCompletesBelowTheHardCapAndNothingArrivesDuringRetryAfter() throws Exception {
        long start = System.nanoTime();
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:s3?maxLimit=50&traceListener=#pauses", ITEMS,
                i -> "item-" + i, Map.of());
        List<Exchange> done = batch.await(100);
        long wallMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        List<Arrival> arrivals = server.get().arrivals();
        int[] secondHalf = arrivals.subList(arrivals.size() / 2, arrivals.size()).stream()
                .mapToInt(Arrival::inflight).sorted().toArray();
        int settledP90 = secondHalf[(int) Math.floor(secondHalf.length * 0.9) - 1];
        List<Arrival> inWindow = arrivals.stream().filter(Arrival::duringRetryAfter)
                .toList();
        // Dispatched before the pool could read the 429 (on the wire, or in the client): the pool
        // cannot recall those. Anything granted a slot after it paused would be its fault.
        long afterPause = inWindow.stream()
                .filter(a -> a.dispatchedNanos() - pauses.pausedAfter(a.windowStart()) > 0)
                .count();
        AdaptiveStats stats = context.getComponent("adaptive", AdaptiveComponent.class).stats("s3").orElseThrow();
        System.out.printf("S3 camel: wall=%d ms, arrivals=%d, 429s=%d, maxConcurrency=%d, p90 concurrency in 2nd"
                        + " half=%d, arrivals during Retry-After=%d (dispatched after the pool paused=%d),"
                        + " final limit=%d, max limit=%d, retries=%d%n",
                wallMs, arrivals.size(), server.get().rateLimitedAnswers(), server.get().maxConcurrency(), settledP90,
                inWindow.size(), afterPause, stats.limit(), stats.maxLimitReached(), stats.retries());

        assertThat(done).allSatisfy(e -> {
            assertThat(e.getException()).isNull();
            assertThat(e.getMessage().getBody(String.class)).isEqualTo("ok");
            assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).isEqualTo(200);
            assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isBetween(1, 11);
            assertThat(e.getMessage().getHeader(AdaptiveConstants.CONCURRENCY, Integer.class)).isBetween(1, 50);
        });
        assertThat(batch.asyncReturns()).as("every send returned at once").isEqualTo(ITEMS);
        assertThat(stats.completed()).isEqualTo(ITEMS);
        assertThat(stats.pending()).isZero();
        assertThat(stats.inflight()).isZero();
        assertThat(settledP90).as("concurrency at the server once settled (p90, second half)").isLessThanOrEqualTo(HARD);
        assertThat(afterPause).as("arrivals during Retry-After dispatched after the pool read the 429").isZero();
        assertThat(server.get().rateLimitedAnswers()).as("429s: the pool stays below the cap, it does not bounce off it")
                .isLessThanOrEqualTo(ITEMS / 20);
        batch.stop();
    }
}
