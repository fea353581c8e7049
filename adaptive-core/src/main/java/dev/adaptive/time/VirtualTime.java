package dev.adaptive.time;

import dev.adaptive.internal.Nanos;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A manual clock and scheduler for deterministic tests and simulations: time moves only when
 * the owner calls {@link #advance}, {@link #advanceTo}, {@link #runNext} or
 * {@link #runUntilIdle}, and tasks run only inside those calls and {@link #runDue}.
 *
 * <p><b>Order.</b> Tasks run in order of due time; tasks due at the same instant run in the
 * order they were scheduled. Before a task runs, the clock is set to its due time, so a task
 * reading {@link #nanoTime()} sees the instant it was scheduled for.
 *
 * <p><b>Threads.</b> Thread-safe: any thread may schedule, cancel or read the time. Tasks run
 * on the thread that calls a running method, outside any lock, so a task may schedule or
 * cancel other tasks. Running methods are meant to be called by one thread at a time; calls
 * from several threads are safe but interleave their tasks, so the order above then holds
 * only per call.
 *
 * <p><b>Failures.</b> A task that throws does not stop the others: the throwable is caught,
 * recorded in {@link #uncaught()} and counted as a task that ran. A test should assert that
 * {@code uncaught()} is empty, or it will miss failures inside tasks. A
 * {@link VirtualMachineError} is not caught.
 *
 * <p><b>Runaway tasks.</b> A task that keeps rescheduling itself would make
 * {@link #runUntilIdle()} loop forever, and one that reschedules itself with a delay of zero
 * would do the same to {@link #runDue()} and {@link #advance}. So each call runs at most
 * {@code maxTasksPerCall} tasks (default {@value #DEFAULT_MAX_TASKS_PER_CALL}; for
 * {@code advance}, per instant) and then throws {@link IllegalStateException}, leaving the
 * rest pending.
 *
 * <p>Delays saturate: a due time beyond {@link Long#MAX_VALUE} nanoseconds becomes
 * {@code Long.MAX_VALUE}, which {@code advance} never reaches in practice, but which
 * {@code runUntilIdle} and {@code runNext} do jump to.
 */
public final class VirtualTime implements Ticker, Scheduler {

    /** The default bound on tasks run by one call: 10,000,000. */
    public static final int DEFAULT_MAX_TASKS_PER_CALL = 10_000_000;

    private final Object lock = new Object();
    private final long startNanos;
    private final int maxTasksPerCall;
    /** Written under {@code lock}; volatile so reading the time never contends with scheduling. */
    private volatile long now;
    /** Pending tasks only: a task leaves the set, under the lock, before it runs or when cancelled. */
    private final TreeSet<Task> queue = new TreeSet<>();
    private long sequence;
    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();

    /** Creates a virtual time starting at 0 ns, with the default per-call task bound. */
    public VirtualTime() {
        this(0L);
    }

    /**
     * Creates a virtual time with the default per-call task bound.
     *
     * @param startNanos the first reading of {@link #nanoTime()}; any value, like
     *                   {@link System#nanoTime()}
     */
    public VirtualTime(long startNanos) {
        this(startNanos, DEFAULT_MAX_TASKS_PER_CALL);
    }

    /**
     * Creates a virtual time.
     *
     * @param startNanos      the first reading of {@link #nanoTime()}
     * @param maxTasksPerCall how many tasks one running call may run before it throws
     *                        {@link IllegalStateException}; default
     *                        {@value #DEFAULT_MAX_TASKS_PER_CALL}
     * @throws IllegalArgumentException if {@code maxTasksPerCall} is not positive
     */
    public VirtualTime(long startNanos, int maxTasksPerCall) {
        this.startNanos = startNanos;
        this.maxTasksPerCall = checkMaxTasks(maxTasksPerCall);
        this.now = startNanos;
    }

    /** @return the current virtual reading in nanoseconds; never decreases */
    @Override
    public long nanoTime() {
        return now;
    }

    /** @return the virtual time elapsed since construction; never negative */
    public Duration elapsed() {
        // Duration spans far more than a long of nanos, so the difference cannot overflow.
        return Duration.ofNanos(now).minusNanos(startNanos);
    }

    /**
     * Schedules {@code task} at {@code nanoTime() + delayNanos}. It never runs inline: a delay
     * of zero or less makes it due now, and it runs at the next {@link #runDue()},
     * {@link #advance}, {@link #runNext()} or {@link #runUntilIdle()}.
     *
     * @param task       the task
     * @param delayNanos the delay; saturates at {@link Long#MAX_VALUE} absolute time
     * @return a handle whose {@code cancel()} removes the task if it has not started
     * @throws NullPointerException if {@code task} is null
     */
    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        Objects.requireNonNull(task, "task");
        synchronized (lock) {
            long due = delayNanos <= 0 ? now : Nanos.plus(now, delayNanos);
            Task t = new Task(due, sequence++, task);
            queue.add(t);
            return t;
        }
    }

    /**
     * Runs every task due at the current instant, including those that these tasks schedule
     * with a delay of zero or less. The clock does not move.
     *
     * @return how many tasks ran
     * @throws IllegalStateException if more than {@code maxTasksPerCall} tasks were due
     */
    public int runDue() {
        return run(now, maxTasksPerCall, true);
    }

    /**
     * Moves the clock forward by {@code delta}, as {@link #advanceTo(long)}.
     *
     * @param delta how far to move; zero runs what is due now; saturates at
     *              {@link Long#MAX_VALUE} absolute time
     * @throws NullPointerException     if {@code delta} is null
     * @throws IllegalArgumentException if {@code delta} is negative
     * @throws IllegalStateException    as {@link #advanceTo(long)}
     */
    public void advance(Duration delta) {
        Objects.requireNonNull(delta, "delta");
        if (delta.isNegative()) {
            throw new IllegalArgumentException("delta must be >= 0: " + delta);
        }
        long target;
        synchronized (lock) {
            target = Nanos.plus(now, Nanos.of(delta));
        }
        advanceTo(target);
    }

    /**
     * Moves the clock forward to {@code targetNanos}, stopping at each instant a task is due:
     * the clock is set to that instant, then the task runs. Finally the clock reads
     * {@code targetNanos} and everything due then has run.
     *
     * @param targetNanos the reading to reach; equal to {@link #nanoTime()} runs what is due now
     * @throws IllegalArgumentException if {@code targetNanos} is before {@link #nanoTime()}
     * @throws IllegalStateException    if more than {@code maxTasksPerCall} tasks ran at one
     *                                  instant; the clock then stays at that instant
     */
    public void advanceTo(long targetNanos) {
        long current = now;
        if (targetNanos < current) {
            throw new IllegalArgumentException("targetNanos must be >= nanoTime() (" + current + "): " + targetNanos);
        }
        run(targetNanos, maxTasksPerCall, true);
    }

    /**
     * Runs the next pending task, first moving the clock to its due time if that is later.
     *
     * @return {@code false} if no task was pending
     */
    public boolean runNext() {
        Task next;
        synchronized (lock) {
            next = takeFirstDueBy(Long.MAX_VALUE);
        }
        if (next == null) {
            return false;
        }
        execute(next);
        return true;
    }

    /**
     * Runs tasks, jumping the clock to each one's due time, until none is pending, including
     * tasks scheduled meanwhile. Bounded by the {@code maxTasksPerCall} given at construction.
     *
     * @return how many tasks ran
     * @throws IllegalStateException if tasks remain after {@code maxTasksPerCall} ran (a
     *                               periodic task never lets time become idle)
     */
    public int runUntilIdle() {
        return runUntilIdle(maxTasksPerCall);
    }

    /**
     * As {@link #runUntilIdle()}, with a bound for this call only.
     *
     * @param maxTasks how many tasks may run before this call gives up
     * @return how many tasks ran
     * @throws IllegalArgumentException if {@code maxTasks} is not positive
     * @throws IllegalStateException    if tasks remain after {@code maxTasks} ran
     */
    public int runUntilIdle(int maxTasks) {
        return run(Long.MAX_VALUE, checkMaxTasks(maxTasks), false);
    }

    /** @return how many tasks are scheduled and neither cancelled nor started */
    public int pendingTasks() {
        synchronized (lock) {
            return queue.size();
        }
    }

    /** @return the due time of the next pending task, or empty if none is pending */
    public OptionalLong nextDueNanos() {
        synchronized (lock) {
            return queue.isEmpty() ? OptionalLong.empty() : OptionalLong.of(queue.first().due);
        }
    }

    /**
     * @return the throwables that tasks threw, in the order they were thrown; an unmodifiable
     *         snapshot. Never cleared: it grows with every failing task.
     */
    public List<Throwable> uncaught() {
        return List.copyOf(uncaught);
    }

    /**
     * A wall-clock view of this virtual time, for code that needs a {@link Clock} (for example
     * to compare an HTTP date with "now"). Its instant is {@code epoch + elapsed()}, read live.
     *
     * @param epoch the wall-clock instant at which this virtual time started
     * @return a clock in {@link ZoneOffset#UTC}; its {@code instant()} throws
     *         {@link java.time.DateTimeException} if {@code epoch + elapsed()} exceeds
     *         {@link Instant#MAX}
     * @throws NullPointerException if {@code epoch} is null
     */
    public Clock clock(Instant epoch) {
        return new VirtualClock(this, epoch, ZoneOffset.UTC);
    }

    @Override
    public String toString() {
        return "VirtualTime[nanoTime=" + now + ", elapsed=" + elapsed() + ", pending=" + pendingTasks() + "]";
    }

    /**
     * The one loop behind runDue, advanceTo and runUntilIdle.
     *
     * @param target     run tasks due at or before this reading
     * @param maxTasks   the bound on tasks run
     * @param perInstant whether the bound counts per instant (and the clock ends at
     *                   {@code target}) rather than per call
     */
    private int run(long target, int maxTasks, boolean perInstant) {
        int ran = 0;
        int ranAtInstant = 0;
        long instant = now;
        while (true) {
            Task next;
            synchronized (lock) {
                if (queue.isEmpty() || queue.first().due > target) {
                    if (perInstant && target > now) {
                        now = target;
                    }
                    return ran;
                }
                long nextInstant = Math.max(now, queue.first().due);
                if (nextInstant != instant) {
                    instant = nextInstant;
                    ranAtInstant = 0;
                }
                if ((perInstant ? ranAtInstant : ran) >= maxTasks) {
                    throw new IllegalStateException("ran " + maxTasks + " tasks"
                            + (perInstant ? " at instant " + instant : "")
                            + " and more are due: a task that keeps rescheduling itself?");
                }
                next = takeFirstDueBy(target);
            }
            execute(next);
            ran++;
            ranAtInstant++;
        }
    }

    /** Under the lock: removes the first task if due by {@code target} and moves the clock to it. */
    private Task takeFirstDueBy(long target) {
        if (queue.isEmpty() || queue.first().due > target) {
            return null;
        }
        Task first = queue.pollFirst();
        if (first.due > now) {
            now = first.due;
        }
        return first;
    }

    private void execute(Task task) {
        try {
            task.runnable.run();
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable failure) {
            uncaught.add(failure);
        }
    }

    private static int checkMaxTasks(int maxTasks) {
        if (maxTasks <= 0) {
            throw new IllegalArgumentException("maxTasksPerCall must be > 0: " + maxTasks);
        }
        return maxTasks;
    }

    /** A scheduled task; ordered by due time, then by scheduling sequence. */
    private final class Task implements Cancellable, Comparable<Task> {
        final long due;
        final long seq;
        final Runnable runnable;

        Task(long due, long seq, Runnable runnable) {
            this.due = due;
            this.seq = seq;
            this.runnable = runnable;
        }

        @Override
        public boolean cancel() {
            synchronized (lock) {
                // Membership is the state: a task leaves the queue exactly once, to run or here.
                return queue.remove(this);
            }
        }

        @Override
        public int compareTo(Task other) {
            int byDue = Long.compare(due, other.due);
            return byDue != 0 ? byDue : Long.compare(seq, other.seq);
        }

        @Override
        public String toString() {
            return "Task[due=" + due + ", seq=" + seq + "]";
        }
    }
}
