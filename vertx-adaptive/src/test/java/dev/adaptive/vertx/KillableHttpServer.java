package dev.adaptive.vertx;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real HTTP server on 127.0.0.1 that a test can kill and bring back on the same port. While
 * {@link #holding} it accepts every request and never answers it (a hung or slow-loris
 * downstream); otherwise it answers {@code 200 "ok <path>"} at once. Tests wait on its events
 * ({@link #arrivals(int)}), never on the clock.
 */
final class KillableHttpServer {

    private final Vertx vertx;
    private volatile boolean holding;
    private HttpServer server;
    private int port;
    private int arrivals;
    private final List<String> answered = new ArrayList<>();
    private final List<String> held = new ArrayList<>();
    private final Map<Integer, List<Promise<Void>>> arrivalWatches = new TreeMap<>();

    /** @param vertx the server's own Vert.x instance, so that the client's event loops stay apart */
    KillableHttpServer(Vertx vertx) {
        this.vertx = vertx;
    }

    /** @return the port, chosen by the system */
    int start() {
        server = listen(0);
        port = server.actualPort();
        return port;
    }

    /** Stops listening and closes every connection, failing the requests it holds at the client. */
    void kill() {
        Await.result(server.close());
    }

    /** Listens again on the port it had, answering from now on. */
    void restart() {
        holding = false;
        server = listen(port);
    }

    /** @param hold whether requests from now on are held forever instead of answered */
    void holding(boolean hold) {
        this.holding = hold;
    }

    private HttpServer listen(int onPort) {
        return Await.result(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(onPort))
                .requestHandler(this::handle).listen());
    }

    private void handle(HttpServerRequest req) {
        List<Promise<Void>> reached = new ArrayList<>();
        boolean hold = holding;
        synchronized (this) {
            arrivals++;
            (hold ? held : answered).add(req.path());
            Iterator<Map.Entry<Integer, List<Promise<Void>>>> it = arrivalWatches.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Integer, List<Promise<Void>>> e = it.next();
                if (e.getKey() > arrivals) {
                    break;
                }
                reached.addAll(e.getValue());
                it.remove();
            }
        }
        reached.forEach(Promise::tryComplete);
        if (!hold) {
            req.response().end("ok " + req.path());
        }
    }

    /** @return completes once {@code n} requests have arrived in all */
    synchronized Future<Void> arrivals(int n) {
        if (arrivals >= n) {
            return Future.succeededFuture();
        }
        Promise<Void> p = Promise.promise();
        arrivalWatches.computeIfAbsent(n, k -> new ArrayList<>()).add(p);
        return p.future();
    }

    /** @return the paths answered, in arrival order */
    synchronized List<String> answered() {
        return List.copyOf(answered);
    }

    /** @return the paths held, in arrival order */
    synchronized List<String> held() {
        return List.copyOf(held);
    }

    int port() {
        return port;
    }
}
