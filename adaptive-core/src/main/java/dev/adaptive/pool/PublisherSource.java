package dev.adaptive.pool;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Items from a {@link Flow.Publisher}: the feeder requests one item only when it holds a free
 * slot and nothing requested is outstanding, so at most one item waits in the inbox.
 *
 * <p>A publisher that sends more than it was asked for breaks the Reactive Streams rules; the
 * extra items are still accepted and processed, never dropped. A {@code null} item is a
 * failure of the input, as the rules say.
 */
final class PublisherSource<T> implements Source<T>, Flow.Subscriber<T> {

    private final Flow.Publisher<? extends T> publisher;
    private final Queue<Object> inbox = new ConcurrentLinkedQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile Flow.Subscription subscription;
    private volatile boolean terminal;
    private volatile boolean cancelled;
    private volatile Throwable failure;
    private volatile Runnable wake = () -> { };

    PublisherSource(Flow.Publisher<? extends T> publisher) {
        this.publisher = publisher;
    }

    @Override
    public void open(Runnable wake) {
        this.wake = wake;
        try {
            publisher.subscribe(this);
        } catch (Throwable t) {
            onError(t);
        }
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        if (subscription != null || cancelled) {
            s.cancel();
            return;
        }
        subscription = s;
        wake.run();
    }

    @Override
    public void onNext(T item) {
        if (item == null) {
            onError(new NullPointerException("publisher sent a null item"));
            cancel();
            return;
        }
        inbox.offer(item);
        outstanding.decrementAndGet();
        wake.run();
    }

    @Override
    public void onError(Throwable t) {
        failure = t == null ? new NullPointerException("publisher signalled a null error") : t;
        terminal = true;
        wake.run();
    }

    @Override
    public void onComplete() {
        terminal = true;
        wake.run();
    }

    @Override
    public boolean ready() {
        return !inbox.isEmpty() || terminal
                || (subscription != null && !cancelled && outstanding.get() <= 0);
    }

    @Override
    public Object next() {
        Object item = poll();
        if (item != WAIT) {
            return item;
        }
        Flow.Subscription s = subscription;
        if (s == null || cancelled || outstanding.get() > 0) {
            return WAIT;
        }
        outstanding.incrementAndGet();
        try {
            s.request(1);
        } catch (Throwable t) {
            onError(t);
        }
        // A synchronous publisher has delivered already.
        return poll();
    }

    /** @return an item, {@link #END} after the inbox is empty and the input terminated, else {@link #WAIT} */
    private Object poll() {
        Object item = inbox.poll();
        if (item != null) {
            return item;
        }
        if (terminal) {
            // onNext happens before onComplete: look once more after seeing the terminal flag.
            item = inbox.poll();
            return item != null ? item : END;
        }
        return WAIT;
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    @Override
    public void drainAccepted(Consumer<Object> accepted) {
        cancel();
        Object item;
        while ((item = inbox.poll()) != null) {
            accepted.accept(item);
        }
    }

    @Override
    public void cancel() {
        cancelled = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            try {
                s.cancel();
            } catch (Throwable ignored) {
                // The rules forbid it; nothing is left to do with this publisher anyway.
            }
        }
    }

    @Override
    public void close() {
        cancel();
    }
}
