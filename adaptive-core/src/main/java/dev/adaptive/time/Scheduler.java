package dev.adaptive.time;

import dev.adaptive.internal.Nanos;

import java.time.Duration;
import java.util.Objects;

/**
 * Runs tasks after a delay. All engine code waits only through a {@code Scheduler};
 * nothing in the engine sleeps or starts threads of its own.
 *
 * <p>Tasks must be short: they hand work off, they do not do it. Implementations must be
 * thread-safe. The default is {@link #system()}: one shared daemon thread.
 */
public interface Scheduler {

    /**
     * Schedules {@code task} to run once after {@code delayNanos}. A delay of zero or less
     * means "as soon as possible", never "on the calling thread, now".
     *
     * @param task       the task; exceptions it throws are caught and dropped by the scheduler
     * @param delayNanos the delay in nanoseconds
     * @return a handle that cancels the task if it has not run yet
     */
    Cancellable schedule(Runnable task, long delayNanos);

    /**
     * Schedules {@code task} after {@code delay}.
     *
     * @param task  the task
     * @param delay the delay; {@code null} is rejected
     * @return a handle that cancels the task if it has not run yet
     */
    default Cancellable schedule(Runnable task, Duration delay) {
        Objects.requireNonNull(delay, "delay");
        return schedule(task, Nanos.of(delay));
    }

    /**
     * @return the shared scheduler: a single daemon thread named {@code adaptive-scheduler},
     *         started on first use, never shut down (it holds no resources worth closing)
     */
    static Scheduler system() {
        return SystemTime.scheduler();
    }
}
