package dev.adaptive.vertx;

import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClosedException;

import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts, from a limiter's trace, the attempts that ended because the connection failed
 * (refused, closed under a request in flight, or reset by the dying server), so that a test can act after the client has
 * seen {@code n} of them rather than after some time.
 */
final class ConnectionFailures implements TraceListener {

    private final int watchFor;
    private final Promise<Void> reached = Promise.promise();
    private final AtomicInteger seen = new AtomicInteger();
    private final List<Throwable> others = new ArrayList<>();

    /** @param watchFor the count {@link #reached()} waits for */
    ConnectionFailures(int watchFor) {
        this.watchFor = watchFor;
    }

    /**
     * @return whether {@code t} says the connection was refused, closed under the request, or
     *         reset (a server killed with a request being read resets it instead of closing it)
     */
    static boolean isConnectionFailure(Throwable t) {
        // SocketException covers ConnectException (refused) and "Connection reset".
        return t instanceof SocketException || t instanceof HttpClosedException;
    }

    @Override
    public void onEvent(TraceEvent event) {
        if (event instanceof TraceEvent.TaskEnd end && end.error() != null) {
            if (isConnectionFailure(end.error())) {
                if (seen.incrementAndGet() >= watchFor) {
                    reached.tryComplete();
                }
            } else {
                synchronized (others) {
                    others.add(end.error());
                }
            }
        }
    }

    /** @return completes at the {@code watchFor}-th connection failure */
    Future<Void> reached() {
        return reached.future();
    }

    int seen() {
        return seen.get();
    }

    /** @return attempts that failed for another reason */
    List<Throwable> others() {
        synchronized (others) {
            return List.copyOf(others);
        }
    }
}
