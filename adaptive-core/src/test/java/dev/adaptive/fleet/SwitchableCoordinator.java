package dev.adaptive.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One node's line to a real coordinator, which a test can cut: while cut, calls fail (or hang,
 * then fail when the line is restored) and pauses are not delivered, as for a node partitioned
 * from the store while the rest of the fleet still reaches it.
 */
final class SwitchableCoordinator implements Coordinator {

    enum Line { UP, FAILING, HANGING }

    private final Coordinator delegate;
    private volatile Line line = Line.UP;
    private final List<CompletableFuture<?>> hung = new ArrayList<>();
    private int heartbeats;

    SwitchableCoordinator(Coordinator delegate) {
        this.delegate = delegate;
    }

    void set(Line line) {
        this.line = line;
        if (line != Line.HANGING) {
            List<CompletableFuture<?>> stuck;
            synchronized (hung) {
                stuck = new ArrayList<>(hung);
                hung.clear();
            }
            stuck.forEach(f -> f.completeExceptionally(new IllegalStateException("line was down")));
        }
    }

    int heartbeats() {
        return heartbeats;
    }

    private <T> CompletionStage<T> down() {
        if (line == Line.FAILING) {
            return CompletableFuture.failedFuture(new IllegalStateException("coordinator unreachable"));
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        synchronized (hung) {
            hung.add(f);
        }
        return f;
    }

    @Override
    public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
        heartbeats++;
        return line == Line.UP ? delegate.heartbeat(key, report, ttl) : down();
    }

    @Override
    public CompletionStage<Void> leave(String key, String nodeId) {
        return line == Line.UP ? delegate.leave(key, nodeId) : down();
    }

    @Override
    public CompletionStage<Void> publishPause(String key, FleetPause pause) {
        return line == Line.UP ? delegate.publishPause(key, pause) : down();
    }

    @Override
    public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
        return delegate.subscribePauses(key, p -> {
            if (line == Line.UP) {
                listener.accept(p);
            }
        });
    }
}
