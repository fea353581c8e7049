package dev.adaptive.vertx;

import dev.adaptive.testing.Arrival;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import io.vertx.core.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.List;

/**
 * A {@link FlakyHttpServer} started holding every request (the first requests are in flight at
 * it when a test kills or releases it), stopped after each test. Once released it answers
 * {@code 200 "ok <path>"} after a millisecond.
 */
abstract class HoldingServerTest {

    FlakyHttpServer server;
    int port;

    @BeforeEach
    void startHoldingServer() {
        server = FlakyHttpServer.builder(FlakyModel.holding(1)).okBody(path -> "ok " + path).start();
        server.holding(true);
        port = server.port();
    }

    @AfterEach
    void stopHoldingServer() {
        server.close();
    }

    /** @return completes once {@code n} requests have arrived in all, held or answered */
    Future<Void> arrivals(int n) {
        return Future.fromCompletionStage(server.whenArrived(n));
    }

    /** @return the paths answered, in arrival order */
    List<String> answered() {
        return server.arrivals().stream().map(Arrival::path).toList();
    }
}
