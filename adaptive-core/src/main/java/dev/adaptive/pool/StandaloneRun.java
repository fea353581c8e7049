package dev.adaptive.pool;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.LimitChangeListener;
import dev.adaptive.Limiter;
import dev.adaptive.limit.Limit;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The plain Java face's wiring of a {@link PoolEngine}: a run of {@link ItemPool} owns its
 * limiter and executor, built from its {@link PoolOptions}, and, for a blocking processor
 * without an executor of the user's, its threads; the run stops the limiter and shuts the
 * threads down when it ends. Passes run on the signalling thread, never yielding.
 */
final class StandaloneRun {

    private StandaloneRun() {
    }

    /**
     * @param options  the run's options
     * @param source   the input
     * @param sink     where settled items go
     * @param async    the processor, or {@code null} when {@code blocking} is given
     * @param blocking the blocking processor, or {@code null}
     * @param <T>      the item type
     * @param <R>      the result type
     * @return the run, not started
     */
    static <T, R> PoolEngine<T, R> engine(PoolOptions options, Source<T> source, Sink<T, R> sink,
                                          ItemProcessor<? super T, R> async, BlockingProcessor<? super T, R> blocking) {
        Limit limit = options.limit();
        // The limiter is built before the run exists, and its listeners are fixed then: the run
        // follows its limit through this relay.
        AtomicReference<LimitChangeListener> follower = new AtomicReference<>();
        Limiter.Builder lb = Limiter.builder().name(options.name()).limit(limit)
                .ticker(options.ticker()).scheduler(options.scheduler())
                .adapt(options.adapt()).maxRetryAfter(options.retryPolicy().maxRetryAfter())
                .retryBudget(options.retryBudget())
                .outageProbe(options.outageProbe())
                .limitChangeListener((from, to) -> {
                    LimitChangeListener l = follower.get();
                    if (l != null) {
                        l.onChange(from, to);
                    }
                });
        options.traceListeners().forEach(lb::traceListener);
        Limiter limiter = lb.build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(options.retryPolicy())
                .classifier(options.classifier()).taskTimeout(options.taskTimeout().orElse(null)).build();
        ExecutorService ownedThreads = null;
        ItemProcessor<? super T, R> processor = async;
        if (blocking != null) {
            ownedThreads = options.blockingExecutor().isPresent() ? null
                    : BlockingThreads.create(options.name(), limit.maxLimit());
            processor = BlockingAdapter.adapt(blocking,
                    ownedThreads != null ? ownedThreads : options.blockingExecutor().get());
        }
        ExecutorService threads = ownedThreads;
        return PoolEngine.<R>builder(limiter, executor::start)
                .followLimit(listener -> {
                    follower.set(listener);
                    return () -> follower.set(null);
                })
                .maxPending(options.maxPending())
                .deadline(options.deadline().orElse(null))
                .cancellations(options.cancellations())
                .onEnd(() -> {
                    limiter.stop();
                    if (threads != null) {
                        // No interrupt: every attempt has settled, so what is left are idle
                        // threads and attempts already interrupted by their own cancellation.
                        threads.shutdown();
                    }
                })
                .build(source, sink, processor);
    }
}
