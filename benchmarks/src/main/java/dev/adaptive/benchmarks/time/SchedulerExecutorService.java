package dev.adaptive.benchmarks.time;

import dev.adaptive.internal.Nanos;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ScheduledExecutorService} whose tasks run on an engine {@link Scheduler} and whose
 * delays are read from a {@link Ticker}. It lets the peer libraries that take an executor for
 * their retry waits (Resilience4j's asynchronous retry, Failsafe) run in
 * {@link dev.adaptive.time.VirtualTime} without knowing it.
 *
 * <p>Tasks run on whatever thread the scheduler runs them (the virtual-time loop, or the
 * scheduler's thread in real time). {@link #shutdown()} refuses new tasks; tasks already
 * scheduled still run; {@link #shutdownNow()} also cancels those not yet started.
 * Thread-safe.
 */
public final class SchedulerExecutorService extends AbstractExecutorService implements ScheduledExecutorService {

    private final Ticker ticker;
    private final Scheduler scheduler;
    private final AtomicInteger pending = new AtomicInteger();
    private final java.util.Set<Task<?>> live = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean shutdown;

    /**
     * @param ticker    the clock delays are measured on
     * @param scheduler where tasks wait and run
     */
    public SchedulerExecutorService(Ticker ticker, Scheduler scheduler) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return submitAt(new Task<>(Executors.callable(command), 0, 0), delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return submitAt(new Task<>(callable, 0, 0), delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        if (period <= 0) {
            throw new IllegalArgumentException("period must be > 0: " + period);
        }
        return submitAt(new Task<>(Executors.callable(command), unit.toNanos(period), 0), initialDelay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        if (delay <= 0) {
            throw new IllegalArgumentException("delay must be > 0: " + delay);
        }
        return submitAt(new Task<>(Executors.callable(command), 0, unit.toNanos(delay)), initialDelay, unit);
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    private <V> Task<V> submitAt(Task<V> task, long delay, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        long nanos = Math.max(0, unit.toNanos(delay));
        task.due = Nanos.plus(ticker.nanoTime(), nanos);
        live.add(task);
        pending.incrementAndGet();
        task.handle = scheduler.schedule(task::fire, nanos);
        return task;
    }

    @Override
    public void shutdown() {
        shutdown = true;
        signalIfTerminated();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        for (Task<?> t : live) {
            t.cancel(false);
        }
        signalIfTerminated();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && pending.get() == 0;
    }

    /**
     * Waits on the wall clock for scheduled tasks to finish. Under virtual time nothing runs
     * while this waits, so it only answers whether they are done.
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (this) {
            while (!isTerminated()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return true;
    }

    /** Wakes {@link #awaitTermination} once shut down with nothing left. */
    private void signalIfTerminated() {
        if (isTerminated()) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /** A scheduled task; periodic ones reschedule themselves after each run. */
    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        private final long periodNanos;
        private final long fixedDelayNanos;
        volatile long due;
        volatile Cancellable handle;

        Task(Callable<V> callable, long periodNanos, long fixedDelayNanos) {
            super(callable);
            this.periodNanos = periodNanos;
            this.fixedDelayNanos = fixedDelayNanos;
        }

        private boolean periodic() {
            return periodNanos > 0 || fixedDelayNanos > 0;
        }

        void fire() {
            if (!periodic()) {
                run();
                finish();
                return;
            }
            if (!runAndReset()) {
                finish();
                return;
            }
            long next = periodNanos > 0 ? Nanos.plus(due, periodNanos) : Nanos.plus(ticker.nanoTime(), fixedDelayNanos);
            due = next;
            if (shutdown) {
                cancel(false);
                return;
            }
            handle = scheduler.schedule(this::fire, Math.max(0, Nanos.between(ticker.nanoTime(), next)));
        }

        private void finish() {
            if (live.remove(this)) {
                pending.decrementAndGet();
                signalIfTerminated();
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Cancellable h = handle;
            if (cancelled && h != null) {
                h.cancel();
            }
            if (cancelled) {
                finish();
            }
            return cancelled;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(Nanos.between(ticker.nanoTime(), due), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
