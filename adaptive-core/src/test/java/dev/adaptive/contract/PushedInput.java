package dev.adaptive.contract;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

/**
 * A push input for the contract, which each face adapts to its stream type (a
 * {@code Flow.Publisher}, a {@code ReadStream}): it delivers items asynchronously, on the face's
 * time, only as far as it was asked, and records the most demand it was ever given ahead of
 * delivery. When {@code unruly} it ignores demand and pushes everything at once; with
 * {@code failAfter >= 0} it fails after that many items. Its methods are called by the face's
 * adapter, on one thread at a time (the face's time runs on one).
 *
 * @param <T> the item type
 */
public final class PushedInput<T> {

    /**
     * Where the items go: the face's adapter turns these into its stream's signals.
     *
     * @param <T> the item type
     */
    public interface Receiver<T> {
        /** @param item the next item */
        void item(T item);

        /** The input has no more items. */
        void end();

        /** @param failure the input broke; nothing more comes */
        void failed(Throwable failure);
    }

    private final PoolFace face;
    private final ArrayDeque<T> items;
    private final boolean unruly;
    private final int failAfter;
    private Receiver<T> receiver;
    private long demand;
    private boolean scheduled;
    private boolean done;
    private int delivered;
    private long maxDemand;

    /**
     * @param face      whose time delivers the items
     * @param items     the items
     * @param unruly    whether to push everything without being asked
     * @param failAfter fail after this many items; negative: never
     */
    public PushedInput(PoolFace face, List<T> items, boolean unruly, int failAfter) {
        this.face = face;
        this.items = new ArrayDeque<>(items);
        this.unruly = unruly;
        this.failAfter = failAfter;
    }

    /** @param receiver starts delivering to it (everything at once, if unruly) */
    public synchronized void start(Receiver<T> receiver) {
        this.receiver = receiver;
        schedule();
    }

    /** @param n more items asked for */
    public synchronized void request(long n) {
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
        if (demand != Long.MAX_VALUE) {
            maxDemand = Math.max(maxDemand, demand);
        }
        schedule();
    }

    /** Asks for nothing more until the next {@link #request}. */
    public synchronized void pause() {
        demand = 0;
    }

    /** @return the most demand outstanding at once */
    public synchronized long maxDemand() {
        return maxDemand;
    }

    /** @return items delivered */
    public synchronized int delivered() {
        return delivered;
    }

    private void schedule() {
        if (!scheduled && !done && receiver != null) {
            scheduled = true;
            face.schedule(this::drain, Duration.ZERO);
        }
    }

    private void drain() {
        for (;;) {
            Receiver<T> r;
            T next = null;
            Throwable failure = null;
            boolean end = false;
            synchronized (this) {
                if (done) {
                    scheduled = false;
                    return;
                }
                r = receiver;
                if (failAfter >= 0 && delivered == failAfter) {
                    done = true;
                    failure = new IllegalStateException("pushed input broke after " + delivered + " items");
                } else if (items.isEmpty()) {
                    done = true;
                    end = true;
                } else if (!unruly && demand == 0) {
                    scheduled = false;
                    return;
                } else {
                    next = items.poll();
                    delivered++;
                    if (demand != Long.MAX_VALUE && demand > 0) {
                        demand--;
                    }
                }
            }
            if (failure != null) {
                r.failed(failure);
                return;
            }
            if (end) {
                r.end();
                return;
            }
            r.item(next);
        }
    }
}
