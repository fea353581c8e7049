package dev.adaptive.fleet;

import dev.adaptive.time.Scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A real coordinator whose heartbeat replies a test can hold back, or delay by a fixed lag: the
 * write and read happen at once, as a cluster coordinator's would, and the reply reaches the
 * member only when the test lets it go, or the lag has passed. Models the time a reply spends on
 * the way back, during which the member may be closed, tick, or report again.
 */
final class DelayedReplies implements Coordinator {

    private final Coordinator delegate;
    private final List<Runnable> held = new ArrayList<>();
    private volatile boolean holding;
    private volatile Scheduler lagScheduler;
    private volatile long lagNanos;
    private final AtomicInteger heartbeats = new AtomicInteger();

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

    /** From now on, each heartbeat's reply arrives {@code lag} after it was written, on {@code scheduler}. */
    void lag(Scheduler scheduler, Duration lag) {
        lagScheduler = scheduler;
        lagNanos = lag.toNanos();
    }

    /** @return the heartbeats written so far */
    int heartbeats() {
        return heartbeats.get();
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
        heartbeats.incrementAndGet();
        CompletionStage<List<NodeReport>> written = delegate.heartbeat(key, report, ttl);
        Scheduler lagging = lagScheduler;
        if (!holding && lagging == null) {
            return written;
        }
        CompletableFuture<List<NodeReport>> reply = new CompletableFuture<>();
        Runnable deliver = () -> written.whenComplete((r, e) -> {
            if (e != null) {
                reply.completeExceptionally(e);
            } else {
                reply.complete(r);
            }
        });
        if (holding) {
            synchronized (held) {
                held.add(deliver);
            }
        } else {
            lagging.schedule(deliver, lagNanos);
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
