package dev.adaptive.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A real coordinator whose heartbeat replies a test can hold back: the write and read happen at
 * once, as a cluster coordinator's would, and the reply reaches the member only when the test
 * lets it go. Models the time a reply spends on the way back, during which the member may be
 * closed, tick, or report again.
 */
final class DelayedReplies implements Coordinator {

    private final Coordinator delegate;
    private final List<Runnable> held = new ArrayList<>();
    private volatile boolean holding;

    DelayedReplies(Coordinator delegate) {
        this.delegate = delegate;
    }

    /** From now on, heartbeat replies wait for {@link #release()}. */
    void hold() {
        holding = true;
    }

    /** @return how many replies are held back */
    int held() {
        synchronized (held) {
            return held.size();
        }
    }

    /** Delivers every reply held back, in order, and stops holding. */
    void release() {
        holding = false;
        List<Runnable> due;
        synchronized (held) {
            due = new ArrayList<>(held);
            held.clear();
        }
        due.forEach(Runnable::run);
    }

    @Override
    public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
        CompletionStage<List<NodeReport>> written = delegate.heartbeat(key, report, ttl);
        if (!holding) {
            return written;
        }
        CompletableFuture<List<NodeReport>> reply = new CompletableFuture<>();
        synchronized (held) {
            held.add(() -> written.whenComplete((r, e) -> {
                if (e != null) {
                    reply.completeExceptionally(e);
                } else {
                    reply.complete(r);
                }
            }));
        }
        return reply;
    }

    @Override
    public CompletionStage<Void> leave(String key, String nodeId) {
        return delegate.leave(key, nodeId);
    }

    @Override
    public CompletionStage<Void> publishPause(String key, FleetPause pause) {
        return delegate.publishPause(key, pause);
    }

    @Override
    public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
        return delegate.subscribePauses(key, listener);
    }
}
