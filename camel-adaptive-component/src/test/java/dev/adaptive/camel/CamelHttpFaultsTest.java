package dev.adaptive.camel;

import dev.adaptive.TaskTimeoutException;
import org.apache.camel.Exchange;
import org.apache.camel.RoutesBuilder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults with real parts on loopback through {@code adaptive:} and camel-http: a slow-loris
 * socket accepts and never answers; the task timeout ends each attempt and frees its slot, so
 * every exchange ends with its cause and none hangs. Bounded: a dozen exchanges.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CamelHttpFaultsTest extends CamelTestSupport {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final List<Socket> lorisSockets = new CopyOnWriteArrayList<>();
    private static ServerSocket loris;

    @Override
    protected RoutesBuilder createRouteBuilder() throws Exception {
        loris = new ServerSocket(0, 50, LOOPBACK);
        Thread acceptor = new Thread(() -> {
            while (!loris.isClosed()) {
                try {
                    lorisSockets.add(loris.accept()); // accept, never answer
                } catch (IOException closed) {
                    return;
                }
            }
        }, "camel-slow-loris");
        acceptor.setDaemon(true);
        acceptor.start();
        return new RouteBuilder() {
            @Override
            public void configure() {
                HttpComponent http = getContext().getComponent("http", HttpComponent.class);
                http.setAutomaticRetriesDisabled(true);
                http.setConnectionsPerRoute(32);
                from("adaptive:loris?algorithm=fixed&maxLimit=4&retries=1&minDelay=10ms&maxDelay=20ms&taskTimeout=300ms")
                        .errorHandler(noErrorHandler())
                        .toD("http://127.0.0.1:" + loris.getLocalPort() + "/x/${body}?socketTimeout=60000")
                        .convertBodyTo(String.class);
            }
        };
    }

    @AfterEach
    void stopServers() throws IOException {
        loris.close();
        for (Socket s : lorisSockets) {
            s.close();
        }
        lorisSockets.clear();
    }

    @Test
    void slowLorisDownstreamTaskTimeoutsFreeTheSlots() throws Exception {
        int n = 12;
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:loris", n, i -> i, Map.of());
        List<Exchange> done = batch.await(100);
        batch.stop();
        // A fixed limit of 4 and two attempts each: without freed slots the fifth exchange would wait forever.
        assertThat(done).hasSize(n).allSatisfy(e -> {
            assertThat(e.getException()).isInstanceOf(TaskTimeoutException.class);
            assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
        });
    }
}
