package dev.adaptive.time;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The real-time defaults: {@link System#nanoTime()} and one shared daemon scheduler thread. */
final class SystemTime {

    static final Ticker TICKER = System::nanoTime;

    private SystemTime() {
    }

    static Scheduler scheduler() {
        return Holder.SCHEDULER;
    }

    /** Lazy holder: no thread exists until the first real-time wait. */
    private static final class Holder {
        static final Scheduler SCHEDULER = create();

        private static Scheduler create() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "adaptive-scheduler");
                t.setDaemon(true);
                return t;
            });
            // Cancelled retries and pauses would otherwise stay in the queue until their delay.
            executor.setRemoveOnCancelPolicy(true);
            return (task, delayNanos) -> {
                Runnable guarded = () -> {
                    try {
                        task.run();
                    } catch (Throwable t) {
                        // A task that throws must not kill the shared thread; the engine's own
                        // tasks catch their failures, so this only guards user code.
                        Thread.currentThread().getUncaughtExceptionHandler()
                                .uncaughtException(Thread.currentThread(), t);
                    }
                };
                ScheduledFuture<?> f = executor.schedule(guarded, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
                return () -> f.cancel(false);
            };
        }
    }
}
