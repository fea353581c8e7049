package dev.adaptive.vertx;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.streams.ReadStream;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test {@link ReadStream} over a list that delivers asynchronously on its own context and
 * records how much demand it was ever given ahead of delivery. When {@code unruly}, it ignores
 * pause and fetch and pushes everything at once, as a badly behaved source would.
 */
final class ListStream<T> implements ReadStream<T> {

    private final Context context;
    private final ArrayDeque<T> items;
    private final boolean unruly;
    private Handler<T> handler;
    private Handler<Void> endHandler;
    private long demand = Long.MAX_VALUE;
    private boolean scheduled;
    final AtomicLong delivered = new AtomicLong();
    final AtomicLong maxDemand = new AtomicLong();

    ListStream(Context context, List<T> items, boolean unruly) {
        this.context = context;
        this.items = new ArrayDeque<>(items);
        this.unruly = unruly;
    }

    @Override
    public ReadStream<T> exceptionHandler(Handler<Throwable> handler) {
        return this;
    }

    @Override
    public synchronized ReadStream<T> handler(Handler<T> handler) {
        this.handler = handler;
        schedule();
        return this;
    }

    @Override
    public synchronized ReadStream<T> pause() {
        demand = 0;
        return this;
    }

    @Override
    public synchronized ReadStream<T> resume() {
        demand = Long.MAX_VALUE;
        schedule();
        return this;
    }

    @Override
    public synchronized ReadStream<T> fetch(long amount) {
        demand = demand + amount < 0 ? Long.MAX_VALUE : demand + amount;
        if (demand != Long.MAX_VALUE) {
            maxDemand.accumulateAndGet(demand, Math::max);
        }
        schedule();
        return this;
    }

    @Override
    public synchronized ReadStream<T> endHandler(Handler<Void> endHandler) {
        this.endHandler = endHandler;
        return this;
    }

    private void schedule() {
        if (!scheduled && handler != null) {
            scheduled = true;
            context.runOnContext(v -> drain());
        }
    }

    private void drain() {
        while (true) {
            T next;
            Handler<T> h;
            Handler<Void> end = null;
            synchronized (this) {
                if (items.isEmpty()) {
                    scheduled = false;
                    end = endHandler;
                    endHandler = null;
                    next = null;
                    h = null;
                } else if (!unruly && demand == 0) {
                    scheduled = false;
                    return;
                } else {
                    next = items.poll();
                    if (demand != Long.MAX_VALUE) {
                        demand--;
                    }
                    h = handler;
                }
            }
            if (h == null) {
                if (end != null) {
                    end.handle(null);
                }
                return;
            }
            delivered.incrementAndGet();
            h.handle(next);
        }
    }
}
