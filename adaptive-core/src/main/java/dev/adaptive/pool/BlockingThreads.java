package dev.adaptive.pool;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default executor for blocking processors: one per run, bounded by the pool's maximum
 * concurrency, daemon threads made on demand, shut down when the run ends.
 */
final class BlockingThreads {

    private BlockingThreads() {
    }

    /** The thread name prefix, {@code adaptive-<pool name>-blocking-}; tests look for it. */
    static String prefix(String poolName) {
        return "adaptive-" + poolName + "-blocking-";
    }

    static ExecutorService create(String poolName, int maxLimit) {
        int threads = Math.max(1, Math.min(maxLimit, PoolOptions.MAX_DEFAULT_BLOCKING_THREADS));
        String prefix = prefix(poolName);
        AtomicInteger count = new AtomicInteger();
        // The queue is unbounded on purpose: an attempt that timed out but ignores interrupts
        // keeps its thread while its slot is reused, and the next attempt must then wait for a
        // thread rather than be rejected.
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, prefix + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
