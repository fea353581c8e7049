package dev.adaptive.camel;

import dev.adaptive.internal.Causes;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.spi.Registry;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The downstream dies in the middle of a run and comes back on the same port, behind
 * {@code to("adaptive:...")} whose consumer route calls it through camel-http. Real parts on
 * loopback; each step is triggered by what happened (the server held its first call, the pool
 * saw so many refused connections), never by a clock.
 *
 * <p>Every exchange ends: it succeeds, or carries its last attempt's I/O failure after using up
 * its retries (an exchange without retries sent during the outage ends with the refused or cut
 * connection); none is lost or hangs; the pool holds nothing afterwards and calls succeed again
 * once the server is back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerOutageTest extends CamelTestSupport {

    private static final int EXCHANGES = 300;
    private static final int ANSWERED_BEFORE_THE_OUTAGE = 40;
    private static final int REFUSED_BEFORE_THE_RESTART = 30;
    private static final int RETRIES = 8;
    private static final String POOL = "adaptive:outage?minLimit=1&maxLimit=8&retries=" + RETRIES
            + "&minDelay=20ms&maxDelay=1s&classifier=#refusals";
    /** The same server through a pool that never retries: what the outage does to an exchange with no budget. */
    private static final String ONCE = "adaptive:once?maxLimit=4&retries=0";
    private static final int SENT_DURING_THE_OUTAGE = 10;

    private FlakyHttpServer server;
    private final AtomicInteger refused = new AtomicInteger();
    private final CountDownLatch enoughRefused = new CountDownLatch(1);

    @Override
    protected void bindToRegistry(Registry registry) {
        // Reads nothing itself (null: the default reading); it only counts refused connections.
        registry.bind("refusals", (ExchangeClassifier) attempt -> {
            if (causedBy(attempt.getException(), ConnectException.class)
                    && refused.incrementAndGet() == REFUSED_BEFORE_THE_RESTART) {
                enoughRefused.countDown();
            }
            return null;
        });
    }

    @Override
    protected RoutesBuilder createRouteBuilder() throws Exception {
        server = FlakyHttpServer.start(FlakyModel.holding(1));
        return new RouteBuilder() {
            @Override
            public void configure() {
                HttpComponent http = getContext().getComponent("http", HttpComponent.class);
                http.setAutomaticRetriesDisabled(true);
                http.setConnectionsPerRoute(32);
                from(POOL).routeId("outage").errorHandler(noErrorHandler())
                        .toD("http://127.0.0.1:" + server.port() + "/item/${body}?httpMethod=GET")
                        .convertBodyTo(String.class);
                from(ONCE).routeId("once").errorHandler(noErrorHandler())
                        .toD("http://127.0.0.1:" + server.port() + "/once/${body}?httpMethod=GET")
                        .convertBodyTo(String.class);
            }
        };
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void everyExchangeEndsAcrossAnOutageAndCallsSucceedAgainAfterIt() throws Exception {
        int port = server.port();
        server.holdAfter(ANSWERED_BEFORE_THE_OUTAGE);
        AsyncSends.Batch batch = AsyncSends.send(context, POOL, EXCHANGES, i -> i, Map.of());

        // Calls are in flight at the server (held) and exchanges queue behind them: it dies now.
        assertThat(server.awaitHeld(1, Duration.ofSeconds(60))).isTrue();
        AdaptiveStats atStop = stats();
        server.stop();
        assertThat(atStop.inflight()).as("attempts in flight when the server died").isPositive();
        assertThat(atStop.waiting()).as("exchanges queued when the server died").isPositive();

        // An exchange without retries that runs while the server is down ends with its I/O failure:
        // the refused connection, or a pooled keep-alive connection the dying server cut (seen on
        // a loaded run: NoHttpResponseException).
        AsyncSends.Batch once = AsyncSends.send(context, ONCE, SENT_DURING_THE_OUTAGE, i -> i, Map.of());
        assertThat(once.await(60)).allSatisfy(e -> {
            assertThat(e.getException()).isInstanceOf(IOException.class);
            if (e.getException() instanceof ConnectException) {
                assertThat(e.getException()).hasMessageContaining("127.0.0.1:" + port);
            }
            assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(1);
        });
        once.stop();

        // It comes back on the same port once the pool has met enough refused connections.
        assertThat(enoughRefused.await(60, TimeUnit.SECONDS)).isTrue();
        server.reset();
        server.restart();
        assertThat(server.port()).isEqualTo(port);

        List<Exchange> done = batch.await(100);
        batch.stop();
        int succeeded = 0;
        int recovered = 0;
        for (Exchange e : done) {
            int attempts = e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class);
            if (e.getException() == null) {
                assertThat(e.getMessage().getBody(String.class)).isEqualTo("ok");
                succeeded++;
                recovered += attempts > 1 ? 1 : 0;
            } else {
                // A failure ends an exchange only when its retries are used up, with the last cause.
                assertThat(e.getException()).as("exchange %s", e.getIn().getBody()).isInstanceOf(IOException.class);
                assertThat(attempts).as("attempts of failed exchange %s", e.getIn().getBody()).isEqualTo(RETRIES + 1);
            }
        }
        AdaptiveStats after = stats();
        System.out.printf("outage: %d exchanges, %d succeeded (%d after failed attempts), %d failed; %d refused"
                        + " connections seen; %d answered before, %d after the restart; attempts %d, limit %d%n",
                EXCHANGES, succeeded, recovered, EXCHANGES - succeeded, refused.get(), ANSWERED_BEFORE_THE_OUTAGE,
                server.served(), after.attempts(), after.limit());
        assertThat(after.accepted()).isEqualTo(EXCHANGES);
        assertThat(after.completed() + after.failed()).as("exchanges ended").isEqualTo(EXCHANGES);
        assertThat(after.completed()).isEqualTo(succeeded);
        assertThat(after.inflight()).isZero();
        assertThat(after.waiting()).isZero();
        assertThat(after.pending()).isZero();
        assertThat(refused.get()).isGreaterThanOrEqualTo(REFUSED_BEFORE_THE_RESTART);
        assertThat(recovered).as("exchanges that failed during the outage and succeeded after it").isPositive();
        assertThat(server.served()).as("calls answered after the restart").isPositive();

        // And the pool goes on as before: a fresh wave all succeeds.
        AsyncSends.Batch wave = AsyncSends.send(context, POOL, 50, i -> "after-" + i, Map.of());
        assertThat(wave.await(60)).allSatisfy(e -> {
            assertThat(e.getException()).isNull();
            assertThat(e.getMessage().getBody(String.class)).isEqualTo("ok");
        });
        wave.stop();
        assertThat(stats().inflight()).isZero();
        assertThat(stats().pending()).isZero();
    }

    private AdaptiveStats stats() {
        return context.getComponent("adaptive", AdaptiveComponent.class).stats("outage").orElseThrow();
    }

    private static boolean causedBy(Throwable error, Class<? extends Throwable> type) {
        return Causes.find(error, type) != null;
    }
}
