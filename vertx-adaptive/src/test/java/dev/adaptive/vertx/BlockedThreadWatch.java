package dev.adaptive.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Collects Vert.x's blocked-thread reports for event-loop threads, and tells a task that held
 * its event loop from an event loop the machine did not schedule.
 *
 * <p>The checker measures wall time: on a loaded 2-core machine a runnable event loop can wait
 * for a CPU longer than a tight {@code maxEventLoopExecuteTime} without running any code. So
 * each report is classified: <em>blocking</em> if the thread was waiting (sleep, lock, join)
 * when reported, or used at least the limit in CPU time since the task began (read from a
 * sampler of each event loop's CPU time every few milliseconds); <em>starved</em> otherwise. A
 * CPU-bound task that hogs the loop is blocking however loaded the machine, because it burns
 * the CPU time itself.
 */
final class BlockedThreadWatch implements AutoCloseable {

    record Report(String thread, long durationMs, Thread.State state, long cpuDuringMs, boolean blocking, String where) {
    }

    private static final long SAMPLE_MS = 5;

    private final long limitNanos;
    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final Map<Long, ArrayDeque<long[]>> samples = new HashMap<>(); // thread id -> {wall, cpu}
    private final List<Report> reports = new ArrayList<>();
    /** Samples at a fixed rate on its own daemon thread; nothing in the test waits on it. */
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "blocked-thread-watch-sampler");
        t.setDaemon(true);
        return t;
    });
    private List<Thread> loops = List.of(); // only the sampler's thread touches it
    private long round;

    BlockedThreadWatch(Vertx vertx, long limitMillis) {
        this.limitNanos = limitMillis * 1_000_000;
        ((VertxInternal) vertx).blockedThreadChecker().setThreadBlockedHandler(this::onBlocked);
        sampler.scheduleAtFixedRate(this::sample, 0, SAMPLE_MS, TimeUnit.MILLISECONDS);
    }

    private void sample() {
        if (round++ % 40 == 0) {
            // Listing threads stops the JVM at a safepoint: do it rarely, not every sample.
            loops = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("vert.x-eventloop-thread")).toList();
        }
        long now = System.nanoTime();
        for (Thread t : loops) {
            long cpu = mx.getThreadCpuTime(t.getId());
            synchronized (this) {
                ArrayDeque<long[]> q = samples.computeIfAbsent(t.getId(), k -> new ArrayDeque<>());
                q.addLast(new long[] {now, cpu});
                while (q.size() > 2_000) {
                    q.removeFirst();
                }
            }
        }
    }

    private void onBlocked(BlockedThreadEvent event) {
        Thread t = event.thread();
        if (!t.getName().startsWith("vert.x-eventloop-thread")) {
            return;
        }
        Thread.State state = t.getState();
        long now = System.nanoTime();
        long cpuNow = mx.getThreadCpuTime(t.getId());
        long taskStart = now - event.duration();
        long cpuAtStart = cpuNow;
        synchronized (this) {
            ArrayDeque<long[]> q = samples.get(t.getId());
            if (q != null) {
                // The last sample taken before the task began: CPU since then bounds the task's own.
                for (long[] s : q) {
                    if (s[0] <= taskStart) {
                        cpuAtStart = s[1];
                    }
                }
                if (cpuAtStart == cpuNow && !q.isEmpty() && q.peekFirst()[0] > taskStart) {
                    cpuAtStart = q.peekFirst()[1];
                }
            }
            long cpuDuring = Math.max(0, cpuNow - cpuAtStart);
            boolean waiting = state == Thread.State.BLOCKED || state == Thread.State.WAITING
                    || state == Thread.State.TIMED_WAITING;
            boolean blocking = waiting || cpuDuring >= limitNanos;
            reports.add(new Report(t.getName(), event.duration() / 1_000_000, state, cpuDuring / 1_000_000, blocking,
                    blocking ? where(t.getStackTrace()) : ""));
        }
    }

    /** The innermost frames of the project's and the test's code, to say who held the loop. */
    private static String where(StackTraceElement[] stack) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (StackTraceElement e : stack) {
            if (e.getClassName().startsWith("dev.adaptive") && n++ < 6) {
                sb.append(e.getClassName().replace("dev.adaptive.", "")).append('.').append(e.getMethodName())
                        .append(':').append(e.getLineNumber()).append(" < ");
            }
        }
        return sb.length() == 0 && stack.length > 0 ? stack[0].toString() : sb.toString();
    }

    /** Forgets the reports so far: the JVM's one-time warm-up (class loading, JIT) is not the module's. */
    synchronized void reset() {
        reports.clear();
    }

    synchronized List<Report> reports() {
        return List.copyOf(reports);
    }

    synchronized List<Report> blocking() {
        return reports.stream().filter(Report::blocking).toList();
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        try {
            sampler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
