package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user verticle that owns an {@link AdaptiveLimiter} and an {@link AdaptiveWebClient}, undeployed
 * while its calls are pending against a server that never answers: in flight at the server,
 * queued behind the limit, and waiting for a retry. The limiter does not close itself when its
 * verticle goes (docs/vertx.md); the documented pattern closes it in {@code stop()}, and then
 * every pending call fails at once with the {@link LimiterClosedException} naming it. Nothing
 * else could end these calls within the test's bound: no task timeout, a minute of backoff, a
 * server that holds every request.
 */
@ExtendWith(VertxExtension.class)
class VerticleOwnedLimiterTest extends HoldingServerTest {

    private static final int LIMIT = 3;
    private static final int HELD = 7;

    private int closedPort;

    @BeforeEach
    void findAClosedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort(); // refuses connections once closed: a call that waits for its retry
        }
    }

    /** A user's verticle: its limiter and client are created in start(), on its own context. */
    private final class OrdersVerticle extends VerticleBase {

        private final boolean closeInStop;
        private AdaptiveLimiter limiter;
        private AdaptiveWebClient client;

        OrdersVerticle(boolean closeInStop) {
            this.closeInStop = closeInStop;
        }

        @Override
        public Future<?> start() {
            limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("orders").setAlgorithm("fixed")
                    .setMaxLimit(LIMIT).setRetries(3).setMinDelay(60_000).setMaxDelay(60_000)
                    .setStatsAddress(null));
            client = AdaptiveWebClient.create(WebClient.create(vertx), limiter);
            return Future.succeededFuture();
        }

        @Override
        public Future<?> stop() {
            if (!closeInStop) {
                return Future.succeededFuture();
            }
            // The limiter first: its close fails every pending call with LimiterClosedException
            // and resets their exchanges. Closing the web client first would fail the calls in
            // flight with a connection error, to be retried, and leave the queued ones waiting.
            return limiter.close().onComplete(closed -> client.webClient().close());
        }

        /** Sends, on the verticle's context as its own handlers would, one call to a refused port, then {@value #HELD} held ones. */
        Future<List<Future<HttpResponse<Buffer>>>> sendAll() {
            Promise<List<Future<HttpResponse<Buffer>>>> sent = Promise.promise();
            context.runOnContext(v -> {
                List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>();
                calls.add(client.send(client.get(closedPort, "127.0.0.1", "/refused")));
                for (int i = 0; i < HELD; i++) {
                    calls.add(client.send(client.get(port, "127.0.0.1", "/held/" + i)));
                }
                sent.complete(calls);
            });
            return sent.future();
        }
    }

    /**
     * Deploys, sends, and waits until the refused call waits for its retry and its slot went to
     * a held call: {@value #LIMIT} held at the server, the rest queued.
     */
    private List<Future<HttpResponse<Buffer>>> deployWithPendingCalls(Vertx vertx, OrdersVerticle verticle) {
        Await.result(vertx.deployVerticle(verticle));
        List<Future<HttpResponse<Buffer>>> calls = Await.result(verticle.sendAll());
        Await.result(arrivals(LIMIT));
        assertThat(verticle.limiter.limiter().inflight()).as("held at the server").isEqualTo(LIMIT);
        assertThat(verticle.limiter.limiter().waiting()).as("queued").isEqualTo(HELD - LIMIT);
        assertThat(verticle.limiter.limiter().stats().congestionEvents()).as("the refused call failed once")
                .isEqualTo(1);
        assertThat(calls).noneMatch(Future::isComplete);
        return calls;
    }

    private static void allFailClosed(List<Future<HttpResponse<Buffer>>> calls) {
        for (Future<HttpResponse<Buffer>> call : calls) {
            assertThat(Await.failure(call)).isInstanceOf(LimiterClosedException.class)
                    .hasMessage("adaptive limiter 'orders' was closed before the call completed");
        }
    }

    @Test
    void closingTheLimiterInStopFailsEveryPendingCallAtOnceWithTheLimitersName(Vertx vertx) {
        OrdersVerticle verticle = new OrdersVerticle(true);
        List<Future<HttpResponse<Buffer>>> calls = deployWithPendingCalls(vertx, verticle);

        Await.result(vertx.undeploy(verticle.deploymentID()));

        assertThat(verticle.limiter.isClosed()).isTrue();
        allFailClosed(calls);
        assertThat(verticle.limiter.limiter().inflight()).isZero();
        assertThat(verticle.limiter.limiter().waiting()).isZero();
        assertThat(server.heldPaths()).as("only the limit ever reached the server").hasSize(LIMIT);
        assertThat(Await.failure(verticle.limiter.execute(() -> Future.succeededFuture("late"))))
                .isInstanceOf(LimiterClosedException.class);
    }

    @Test
    void anUndeployAloneDoesNotCloseTheLimiterItsCallsStayPendingUntilItIsClosed(Vertx vertx) {
        OrdersVerticle verticle = new OrdersVerticle(false);
        List<Future<HttpResponse<Buffer>>> calls = deployWithPendingCalls(vertx, verticle);

        // Vert.x closes the web client the verticle created: the calls in flight fail with a
        // connection error and wait a minute for their retry, the queued ones take their slots
        // and fail the same way. None ends: only a close of the limiter ends them now.
        Await.result(vertx.undeploy(verticle.deploymentID()));

        assertThat(verticle.limiter.isClosed()).as("not closed by the undeploy").isFalse();
        assertThat(calls).noneMatch(Future::isComplete);

        Await.result(verticle.limiter.close()); // what stop() should have done
        allFailClosed(calls);
        assertThat(verticle.limiter.limiter().inflight()).isZero();
        assertThat(verticle.limiter.limiter().waiting()).isZero();
    }
}
