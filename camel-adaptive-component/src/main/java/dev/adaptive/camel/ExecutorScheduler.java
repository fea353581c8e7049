package dev.adaptive.camel;

import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The engine's {@link Scheduler} on a {@link ScheduledExecutorService} that Camel's
 * {@code ExecutorServiceManager} created, so that every wait of the component (backoff,
 * Retry-After pauses, task timeouts, waiting for a consumer) runs on a thread Camel knows,
 * names and shuts down. Tasks only hand work off, so one thread serves every pool.
 *
 * <p>Thread-safe. After the executor is shut down, new tasks are dropped: only a stopping
 * component schedules then, and it fails every pending exchange itself.
 */
final class ExecutorScheduler implements Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorScheduler.class);
    private static final Cancellable DROPPED = () -> false;
    private static final ThreadLocal<Boolean> RUNNING_TASK = new ThreadLocal<>();

    private final ScheduledExecutorService executor;

    ExecutorScheduler(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /**
     * @return whether the calling thread is running a task of an {@code ExecutorScheduler}: work
     *         that may block (a caller's route going on) must then move to another thread, or it
     *         would delay every timer of every pool
     */
    static boolean onSchedulerThread() {
        return RUNNING_TASK.get() != null;
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        Runnable guarded = () -> {
            RUNNING_TASK.set(Boolean.TRUE);
            try {
                task.run();
            } catch (Throwable t) {
                // A throwing task must not kill the shared thread; engine tasks catch their own
                // failures, so this only guards user callbacks.
                LOG.warn("Scheduled task failed; it is dropped", t);
            } finally {
                RUNNING_TASK.remove();
            }
        };
        try {
            ScheduledFuture<?> f = executor.schedule(guarded, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException shutDown) {
            LOG.debug("Scheduler is shut down; task dropped: {}", task);
            return DROPPED;
        }
    }
}
