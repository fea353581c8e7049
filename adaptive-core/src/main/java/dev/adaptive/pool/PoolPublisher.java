package dev.adaptive.pool;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A pool run as a {@link Flow.Publisher} of settled items ({@link ItemPool#publish}): the
 * run starts when a subscriber subscribes, each item is published as it settles, and nothing is
 * retained beyond what the subscriber has not yet requested.
 *
 * <ul>
 *   <li>Backpressure: settled items wait for demand, and the pool accepts no new item while
 *       {@code maxPending} items are unsettled or waiting, so a slow subscriber slows intake
 *       instead of filling memory.</li>
 *   <li>One subscriber: a second one gets {@code onSubscribe}, then
 *       {@code onError(IllegalStateException)}. {@code subscribe} returns normally whatever its
 *       {@code onSubscribe} or {@code onError} throws (Reactive Streams 1.9), and one whose
 *       {@code onSubscribe} threw gets no {@code onError} (2.13).</li>
 *   <li>The subscriber's {@code cancel()} cancels the run
 *       ({@link PoolAbortedException.Reason#CANCELLED}); nothing is published after it.</li>
 *   <li>{@code onComplete} follows the last item, whether the run processed its whole input or
 *       was stopped (see {@link #stats()}); {@code onError} is only for a broken subscription
 *       (a {@code request(n)} with {@code n <= 0}) and for a run that cannot begin: if the
 *       pool's ticker throws at the run's first reading, as it is built, the subscriber gets
 *       {@code onSubscribe}, then {@code onError} with what it threw, nothing runs, and
 *       {@link #stats()} fails with it.</li>
 *   <li>A subscriber method that throws is counted in {@link PoolStats#callbackFailures()} and
 *       otherwise ignored, but for {@code onSubscribe}: one that throws cancels the run, as the
 *       subscriber's {@code cancel()} would, with what it threw as the cause (nothing is
 *       signalled to it after, not even {@code onError} for a {@code request(n <= 0)} it made
 *       there), and {@code onComplete} and {@code onError}, which come after the stats are
 *       final. A {@code cancel()} or {@code request(n <= 0)} from {@code onSubscribe} takes
 *       effect once it returns.</li>
 * </ul>
 *
 * <p>Thread-safe.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public final class PoolPublisher<T, R> implements Flow.Publisher<Settled<T, R>> {

    private final Function<Sink<T, R>, PoolEngine<T, R>> runFactory;
    private final Consumer<? super AdaptiveResult<T, ?>> onFinish;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final CompletableFuture<PoolStats> stats = new CompletableFuture<>();
    private volatile PoolEngine<T, R> engine;

    PoolPublisher(Function<Sink<T, R>, PoolEngine<T, R>> runFactory, Consumer<? super AdaptiveResult<T, ?>> onFinish) {
        this.runFactory = runFactory;
        this.onFinish = onFinish;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super Settled<T, R>> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        if (!subscribed.compareAndSet(false, true)) {
            refuse(subscriber, new IllegalStateException("a PoolPublisher runs once and takes one subscriber"));
            return;
        }
        SubscriberSink sink = new SubscriberSink(subscriber);
        PoolEngine<T, R> e;
        try {
            e = runFactory.apply(sink);
        } catch (Throwable cannotStart) {
            // No run (the ticker threw when read for its start): the subscriber hears it as
            // onError after onSubscribe (Reactive Streams 1.9), and so does whoever waits for
            // the stats; thrown from here, neither heard anything. Nothing of the run is left:
            // it registers nothing before that reading, and what it was built on holds no
            // thread and no timer yet.
            stats.completeExceptionally(cannotStart);
            refuse(subscriber, cannotStart);
            return;
        }
        sink.engine = e;
        engine = e;
        // A cancel() or a broken request(n) from onSubscribe takes effect once it returns: acted on
        // at once, it ended the run (final stats) before a throw from onSubscribe could be counted,
        // and that subscriber then got onError after its onSubscribe had thrown.
        sink.subscribing = true;
        Throwable threw = null;
        try {
            subscriber.onSubscribe(sink);
        } catch (Throwable t) {
            threw = t;
        } finally {
            sink.subscribing = false;
        }
        if (threw != null) {
            // The subscription counts as cancelled (Reactive Streams 2.13), and the failure is
            // counted as every other subscriber method's is, and named as the stop's cause:
            // without either, the run said only "cancelled", as if the subscriber had asked.
            // Nothing is signalled to it any more, not even onError for a broken request.
            e.callbackFailed();
            sink.silenced = true;
            sink.cancelled = true;
            e.cancel(threw);
            e.deliver();
        } else if (sink.violation != null) {
            e.cancel(sink.violation);
            e.deliver();
        } else if (sink.cancelled) {
            e.cancel(null);
            e.deliver();
        }
        e.start();
    }

    /**
     * Refuses a subscriber that gets no run: {@code onSubscribe} with a subscription that does
     * nothing, then {@code onError}. Whatever either throws stays here: {@code subscribe} must
     * return normally (Reactive Streams 1.9), and one whose {@code onSubscribe} threw counts as
     * cancelled (2.13) and hears nothing more.
     */
    private static void refuse(Flow.Subscriber<?> subscriber, Throwable why) {
        try {
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                }
            });
        } catch (Throwable brokenSubscriber) {
            return;
        }
        try {
            subscriber.onError(why);
        } catch (Throwable brokenSubscriber) {
            // A subscriber failing in its terminal signal has nothing left to lose.
        }
    }

    /**
     * @return the run's final stats, once it ended; failed with what the ticker threw if the run
     *         could not begin; completing the future does not affect the run
     */
    public CompletableFuture<PoolStats> stats() {
        return stats.copy();
    }

    /**
     * Cancels the run, as the subscriber's {@code cancel()} would, but the subscriber still
     * receives the items that end and then {@code onComplete}.
     *
     * @return {@code true} if this call stopped the run
     */
    public boolean cancel() {
        PoolEngine<T, R> e = engine;
        return e != null && e.cancel(null);
    }

    /** The subscription, and the run's sink: publishes within demand. */
    private final class SubscriberSink implements Sink<T, R>, Flow.Subscription {
        private final Flow.Subscriber<? super Settled<T, R>> subscriber;
        private final AtomicLong demand = new AtomicLong();
        private volatile boolean cancelled;
        private volatile Throwable violation;
        volatile PoolEngine<T, R> engine;
        /** While onSubscribe runs: cancel() and a broken request(n) are acted on once it returns. */
        volatile boolean subscribing;
        /** Its onSubscribe threw: it gets no signal at all. */
        volatile boolean silenced;

        SubscriberSink(Flow.Subscriber<? super Settled<T, R>> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                violation = new IllegalArgumentException("request(n) needs n > 0 (Reactive Streams §3.9): " + n);
                if (!subscribing) {
                    engine.cancel(violation);
                    engine.deliver();
                }
                return;
            }
            demand.getAndAccumulate(n, (current, add) -> current + add < 0 ? Long.MAX_VALUE : current + add);
            engine.deliver();
        }

        @Override
        public void cancel() {
            cancelled = true;
            if (!subscribing) {
                engine.cancel(null);
                engine.deliver();
            }
        }

        private boolean gone() {
            return cancelled || violation != null;
        }

        @Override
        public boolean canDeliver() {
            return gone() || demand.get() > 0;
        }

        @Override
        public void onResult(ItemResult<T, R> result) {
            if (!gone()) {
                demand.decrementAndGet();
                subscriber.onNext(new Settled.Succeeded<>(result));
            }
        }

        @Override
        public void onError(ItemError<T> error) {
            if (!gone()) {
                demand.decrementAndGet();
                subscriber.onNext(new Settled.Failed<>(error));
            }
        }

        @Override
        public void complete(PoolStats finalStats) {
            FinishCallback.run(onFinish, FinishCallback.<T, R>statsOnly(finalStats));
            try {
                Throwable v = violation;
                if (silenced) {
                    // Its onSubscribe threw: the subscription was cancelled there (2.13).
                } else if (v != null) {
                    subscriber.onError(v);
                } else if (!cancelled) {
                    subscriber.onComplete();
                }
            } catch (Throwable ignored) {
                // A subscriber failing in its terminal signal has nothing left to lose.
            }
            stats.complete(finalStats);
        }
    }
}
