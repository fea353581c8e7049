package dev.adaptive.vertx;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A {@link KillableHttpServer} on its own Vert.x instance, started holding every request (the
 * first requests are in flight at it when a test kills or releases it), stopped after each test.
 */
abstract class HoldingServerTest {

    Vertx serverVertx;
    KillableHttpServer server;
    int port;

    @BeforeEach
    void startHoldingServer() {
        serverVertx = Vertx.vertx();
        server = new KillableHttpServer(serverVertx);
        server.holding(true);
        port = server.start();
    }

    @AfterEach
    void stopHoldingServer() {
        Await.result(serverVertx.close());
    }
}
