package dev.adaptive.vertx;

import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's time on Vert.x: a {@link Ticker} reading {@link System#nanoTime()} and a
 * {@link Scheduler} on Vert.x timers ({@link Vertx#setTimer}) of one {@link Context}, so that the
 * core {@link dev.adaptive.Limiter} and {@link dev.adaptive.AdaptiveExecutor} run unchanged on an
 * event loop and no thread of their own is ever started.
 *
 * <p>Delays are rounded <em>up</em> to whole milliseconds (the timers' resolution): a
 * Retry-After pause may end up to 1 ms late, never early. A delay of zero or less runs the task
 * on the context as soon as possible, never on the calling thread. A task that throws is
 * reported to the context's exception handler, if any, and otherwise dropped.
 *
 * <p>Thread-safe: {@link #schedule} may be called from any thread; tasks always run on the
 * context given at creation.
 */
public final class VertxTime implements Ticker, Scheduler {

    private static final long NANOS_PER_MILLI = 1_000_000L;
    // Netty converts the delay back to nanoseconds; keep that conversion from overflowing.
    private static final long MAX_DELAY_MILLIS = Long.MAX_VALUE / NANOS_PER_MILLI - 1;

    private final Vertx vertx;
    private final Context context;

    private VertxTime(Vertx vertx, Context context) {
        this.vertx = vertx;
        this.context = context;
    }

    /**
     * @param context the context every scheduled task runs on
     * @return the engine's time on that context's timers
     */
    public static VertxTime on(Context context) {
        Objects.requireNonNull(context, "context");
        return new VertxTime(context.owner(), context);
    }

    /** @return the context tasks run on */
    public Context context() {
        return context;
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        Objects.requireNonNull(task, "task");
        Handle h = new Handle(task);
        if (delayNanos <= 0) {
            context.runOnContext(v -> h.run());
            return h;
        }
        long millis = millisRoundedUp(delayNanos);
        if (Vertx.currentContext() == context) {
            h.armed(vertx.setTimer(millis, id -> h.run()));
        } else {
            // A timer set from another thread would run on whatever context that thread has;
            // hop first so the task runs on ours.
            context.runOnContext(v -> {
                if (!h.isCancelled()) {
                    h.armed(vertx.setTimer(millis, id -> h.run()));
                }
            });
        }
        return h;
    }

    static long millisRoundedUp(long delayNanos) {
        long millis = delayNanos / NANOS_PER_MILLI + (delayNanos % NANOS_PER_MILLI == 0 ? 0 : 1);
        return Math.max(1, Math.min(millis, MAX_DELAY_MILLIS));
    }

    @Override
    public String toString() {
        return "VertxTime[" + context + "]";
    }

    /** One scheduled task; the timer id is set once armed, -2 once cancelled or run. */
    private final class Handle implements Cancellable {
        private static final long UNARMED = -1;
        private static final long DONE = -2;
        private final Runnable task;
        private final AtomicLong timerId = new AtomicLong(UNARMED);

        Handle(Runnable task) {
            this.task = task;
        }

        void armed(long id) {
            if (!timerId.compareAndSet(UNARMED, id)) {
                vertx.cancelTimer(id); // cancelled while being armed
            }
        }

        boolean isCancelled() {
            return timerId.get() == DONE;
        }

        void run() {
            if (timerId.getAndSet(DONE) == DONE) {
                return;
            }
            try {
                task.run();
            } catch (Throwable t) {
                var handler = context.exceptionHandler();
                if (handler != null) {
                    handler.handle(t);
                }
            }
        }

        @Override
        public boolean cancel() {
            long id = timerId.getAndSet(DONE);
            if (id == DONE) {
                return false;
            }
            if (id != UNARMED) {
                vertx.cancelTimer(id);
            }
            return true;
        }
    }
}
