package dev.adaptive.pool;

import dev.adaptive.TaskContext;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Runs a {@link BlockingProcessor} attempt on an executor and interrupts its thread when the
 * attempt's cancellation fires.
 */
final class BlockingAdapter {

    private BlockingAdapter() {
    }

    static <T, R> ItemProcessor<T, R> adapt(BlockingProcessor<T, R> processor, Executor executor) {
        return (item, context) -> {
            Worker<T, R> worker = new Worker<>(processor, item, context);
            context.cancellation().onCancel(worker::interrupt);
            // A rejection throws here: a failed attempt, classified like any other.
            executor.execute(worker);
            return worker.result;
        };
    }

    /**
     * One attempt on its way through the executor. The monitor makes "interrupt the runner" and
     * "the runner is done" mutually exclusive, so an interrupt meant for this attempt can never
     * reach the next task the same thread runs.
     */
    private static final class Worker<T, R> implements Runnable {
        final CompletableFuture<R> result = new CompletableFuture<>();
        private final BlockingProcessor<T, R> processor;
        private final T item;
        private final TaskContext context;
        private Thread runner;
        private boolean cancelled;

        Worker(BlockingProcessor<T, R> processor, T item, TaskContext context) {
            this.processor = processor;
            this.item = item;
            this.context = context;
        }

        synchronized void interrupt() {
            cancelled = true;
            if (runner != null) {
                runner.interrupt();
            }
        }

        @Override
        public void run() {
            synchronized (this) {
                if (cancelled) {
                    // Timed out or stopped while queued: do not start work nobody will read.
                    result.completeExceptionally(new CancellationException("attempt cancelled before it started"));
                    return;
                }
                runner = Thread.currentThread();
            }
            R value = null;
            Throwable error = null;
            try {
                value = processor.process(item, context);
            } catch (Throwable t) {
                error = t;
            } finally {
                synchronized (this) {
                    runner = null;
                }
                // Clear an interrupt that came late, so the thread's next task does not see it.
                Thread.interrupted();
            }
            // Completed outside the window above: the callbacks it runs (the next dispatch,
            // listeners) must not be interrupted on this attempt's behalf.
            if (error == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(error);
            }
        }
    }
}
