package dev.adaptive.vertx.impl;

import dev.adaptive.Execution;
import dev.adaptive.Lease;
import dev.adaptive.LimiterClosedException;
import dev.adaptive.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.StopPoolException;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemError;
import dev.adaptive.pool.ItemResult;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.PoolStoppedException;
import dev.adaptive.pool.Settled;
import dev.adaptive.vertx.ItemProcessor;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.streams.ReadStream;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One run of an {@code AdaptivePool}. Every field is touched on the run's context only; work
 * arriving from other threads (a lease, a stream item, a settled call) hops there first, so
 * the run needs no locks.
 *
 * <p>Feeding: acquire a lease, then ask the source for one item, then start that item's
 * execution with the lease, and go round again. Only one acquisition is outstanding at a time,
 * so the input is never pulled ahead of the limit. The loop, not recursion, carries on when
 * leases and items come synchronously, and it gives the event loop back every
 * {@value #YIELD_EVERY} items.
 *
 * @param <T> the item type
 * @param <R> the result type
 */
public final class PoolRun<T, R> implements ItemSource.Sink<T> {

    static final int YIELD_EVERY = 256;

    private final AdaptiveLimiterImpl limiter;
    private final Context context;
    private final ItemSource<T> source;
    private final ItemProcessor<? super T, R> processor;
    private final Consumer<Settled<T, R>> onItem;
    private final boolean userCallback;
    private final Promise<PoolStats> done;
    private final RunStats stats;
    private final Runnable unsubscribe;

    private final ArrayDeque<T> unasked = new ArrayDeque<>();
    private final Set<Execution<R>> running = new HashSet<>();
    private CompletableFuture<Lease> pendingAcquire;
    private Lease heldLease;
    private long nextIndex;
    private boolean ended;
    private PoolStoppedException inputFailure;
    private PoolStoppedException stopCause;
    /** What items that end because of the stop fail with: the stop cause, or a closed limiter's own error. */
    private Throwable itemStopError;
    private boolean finished;
    private boolean pumping;
    private boolean again;

    private PoolRun(AdaptiveLimiterImpl limiter, Context context, ItemSource<T> source,
                    ItemProcessor<? super T, R> processor, Consumer<Settled<T, R>> onItem, boolean userCallback) {
        this.userCallback = userCallback;
        this.limiter = limiter;
        this.context = context;
        this.source = source;
        this.processor = processor;
        this.onItem = onItem;
        this.done = Promise.promise();
        this.stats = new RunStats(limiter.limiter());
        this.unsubscribe = limiter.addLimitListener((from, to) -> stats.limitChanged(to));
    }

    /**
     * @param items an iterable
     * @param <T>   the item type
     * @return a source pulling its iterator
     */
    public static <T> ItemSource<T> source(Iterable<? extends T> items) {
        return new ItemSource.FromIterable<>(Objects.requireNonNull(items, "items"));
    }

    /**
     * @param items a stream
     * @param <T>   the item type
     * @return a source fetching it one item at a time
     */
    public static <T> ItemSource<T> source(ReadStream<T> items) {
        return new ItemSource.FromStream<>(Objects.requireNonNull(items, "items"));
    }

    /**
     * Runs and collects.
     *
     * @param limiter   the limiter
     * @param source    the items
     * @param processor the work per item
     * @param <T>       the item type
     * @param <R>       the result type
     * @return successes, errors and stats
     */
    public static <T, R> Future<AdaptiveResult<T, R>> collect(AdaptiveLimiterImpl limiter, ItemSource<T> source,
                                                              ItemProcessor<? super T, R> processor) {
        Objects.requireNonNull(processor, "processor");
        List<ItemResult<T, R>> successes = new ArrayList<>();
        List<ItemError<T>> errors = new ArrayList<>();
        Future<PoolStats> stats = run(limiter, source, processor, r -> {
            if (r instanceof Settled.Succeeded<T, R> s) {
                successes.add(s.result());
            } else if (r instanceof Settled.Failed<T, R> f) {
                errors.add(f.error());
            }
        }, false);
        return stats.map(s -> new AdaptiveResult<>(successes, errors, s));
    }

    /**
     * Runs and streams each outcome.
     *
     * @param limiter   the limiter
     * @param source    the items
     * @param processor the work per item
     * @param onItem    the outcome handler
     * @param <T>       the item type
     * @param <R>       the result type
     * @return the stats
     */
    public static <T, R> Future<PoolStats> stream(AdaptiveLimiterImpl limiter, ItemSource<T> source,
                                                  ItemProcessor<? super T, R> processor,
                                                  Handler<Settled<T, R>> onItem) {
        Objects.requireNonNull(processor, "processor");
        Objects.requireNonNull(onItem, "onItem");
        return run(limiter, source, processor, onItem::handle, true);
    }

    private static <T, R> Future<PoolStats> run(AdaptiveLimiterImpl limiter, ItemSource<T> source,
                                               ItemProcessor<? super T, R> processor,
                                               Consumer<Settled<T, R>> onItem, boolean userCallback) {
        Context ctx = limiter.callerContext();
        PoolRun<T, R> run = new PoolRun<>(limiter, ctx, source, processor, onItem, userCallback);
        // The returned future completes on the run's context, like every AdaptiveLimiter result.
        Future<PoolStats> result = Future.fromCompletionStage(run.done.future().toCompletionStage(), ctx);
        run.onContext(run::begin);
        return result;
    }

    private void begin() {
        source.start(this);
        pump();
    }

    private void onContext(Runnable r) {
        if (Vertx.currentContext() == context) {
            r.run();
        } else {
            context.runOnContext(v -> r.run());
        }
    }

    private boolean wantsMore() {
        return stopCause == null && pendingAcquire == null && heldLease == null
                && (inputFailure == null && !ended || !unasked.isEmpty());
    }

    private void pump() {
        if (pumping) {
            again = true;
            return;
        }
        pumping = true;
        int steps = 0;
        try {
            do {
                again = false;
                while (wantsMore()) {
                    if (++steps > YIELD_EVERY) {
                        context.runOnContext(v -> pump());
                        return;
                    }
                    acquireNext();
                }
            } while (again);
        } finally {
            pumping = false;
        }
        maybeFinish();
    }

    private void acquireNext() {
        CompletableFuture<Lease> f = limiter.limiter().acquire();
        if (f.isDone()) {
            onLease(f);
            return;
        }
        pendingAcquire = f;
        f.whenComplete((lease, error) -> onContext(() -> {
            if (pendingAcquire == f) {
                pendingAcquire = null;
                onLease(f);
            }
            pump();
        }));
    }

    private void onLease(CompletableFuture<Lease> f) {
        Lease lease;
        try {
            lease = f.join();
        } catch (Throwable t) {
            // Closed, or rejected because other callers filled the queue: the run cannot go on.
            if (stopCause == null) {
                Throwable refusal = OutcomeClassifier.unwrap(t);
                // A closed limiter ends the calls it had with its LimiterClosedException (close()
                // cancels them from the closing thread); the run's own cancel of the same calls
                // races with that, so it uses the same cause and every item ends the same way.
                stop(new PoolStoppedException(PoolStoppedException.Reason.CANCELLED, refusal),
                        refusal instanceof LimiterClosedException ? refusal : null);
            }
            return;
        }
        if (stopCause != null) {
            lease.release(Outcome.IGNORED);
            return;
        }
        if (!unasked.isEmpty()) {
            startItem(unasked.poll(), lease);
            return;
        }
        if (ended || inputFailure != null) {
            lease.release(Outcome.IGNORED);
            return;
        }
        heldLease = lease;
        source.request();
    }

    @Override
    public void onItem(T item) {
        onContext(() -> {
            if (stopCause != null) {
                // Fetched before the stop, delivered after: it was pulled, so it must end somewhere.
                stats.accepted();
                settle(new Settled.Failed<>(new ItemError<>(nextIndex++, item, itemStopError, 0)));
                return;
            }
            Lease lease = heldLease;
            if (lease == null) {
                unasked.add(item); // delivered without being asked: keep it, take a slot for it later
            } else {
                heldLease = null;
                startItem(item, lease);
            }
            pump();
        });
    }

    @Override
    public void onEnd() {
        onContext(() -> {
            ended = true;
            releaseHeldLease();
            pump();
        });
    }

    @Override
    public void onError(Throwable error) {
        onContext(() -> {
            if (inputFailure == null) {
                inputFailure = new PoolStoppedException(PoolStoppedException.Reason.INPUT_FAILED, error);
            }
            source.cancel();
            releaseHeldLease();
            pump();
        });
    }

    private void releaseHeldLease() {
        Lease l = heldLease;
        heldLease = null;
        if (l != null) {
            l.release(Outcome.IGNORED);
        }
    }

    private void startItem(T item, Lease lease) {
        long index = nextIndex++;
        stats.accepted();
        Execution<R> e = limiter.start(index, tc -> processor.process(item, tc), lease, context);
        running.add(e);
        e.result().whenComplete((value, error) -> onContext(() -> {
            running.remove(e);
            if (error == null) {
                settle(new Settled.Succeeded<>(new ItemResult<>(index, item, value, e.attempts())));
                pump();
                return;
            }
            Throwable cause = OutcomeClassifier.unwrap(error);
            settle(new Settled.Failed<>(new ItemError<>(index, item, cause, e.attempts())));
            if (cause instanceof StopPoolException && stopCause == null) {
                stop(new PoolStoppedException(PoolStoppedException.Reason.STOPPED, cause), null);
            }
            pump();
        }));
    }

    private void settle(Settled<T, R> r) {
        if (r instanceof Settled.Succeeded<T, R> ok) {
            stats.settled(true, ok.result().attempts());
        } else if (r instanceof Settled.Failed<T, R> failed) {
            stats.settled(false, failed.error().attempts());
        }
        try {
            onItem.accept(r);
        } catch (Throwable t) {
            if (!userCallback) {
                throw t;
            }
            stats.callbackFailed();
            Handler<Throwable> h = context.exceptionHandler();
            if (h != null) {
                h.handle(t);
            }
        }
    }

    /**
     * @param cause     why the run stopped, reported in its stats
     * @param itemCause what running and pulled items end with, or {@code null} for {@code cause}
     */
    private void stop(PoolStoppedException cause, Throwable itemCause) {
        stopCause = cause;
        Throwable itemError = itemCause != null ? itemCause : cause;
        itemStopError = itemError;
        source.cancel();
        CompletableFuture<Lease> f = pendingAcquire;
        pendingAcquire = null;
        if (f != null) {
            f.cancel(false); // the limiter gives back a lease granted to a cancelled acquisition
        }
        releaseHeldLease();
        for (Execution<R> e : List.copyOf(running)) {
            e.cancel(itemError);
        }
        while (!unasked.isEmpty()) {
            stats.accepted();
            settle(new Settled.Failed<>(new ItemError<>(nextIndex++, unasked.poll(), itemError, 0)));
        }
    }

    private void maybeFinish() {
        if (finished || !running.isEmpty() || pendingAcquire != null || heldLease != null) {
            return;
        }
        boolean inputDone = (ended || inputFailure != null) && unasked.isEmpty();
        if (!inputDone && stopCause == null) {
            return;
        }
        finished = true;
        unsubscribe.run();
        done.complete(stats.finish(stopCause != null ? stopCause : inputFailure));
    }
}
