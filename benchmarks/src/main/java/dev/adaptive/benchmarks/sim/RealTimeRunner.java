package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a policy on the wall clock: the same model server, but every latency, backoff and
 * Retry-After is a real wait on one scheduler thread, so the run also pays for timer
 * precision and the engine's real code paths. Each run gets its own scheduler thread, shut
 * down at the end. Not for use inside unit tests.
 */
public final class RealTimeRunner {

    private RealTimeRunner() {
    }

    /**
     * @param policy   the client strategy
     * @param scenario the workload
     * @param seed     the seed of server and client randomness
     * @param timeout  how long to wait for the run before giving up
     * @return the run's figures
     * @throws IllegalStateException if the run does not end within {@code timeout}
     */
    public static RunResult run(Policy policy, Scenario scenario, long seed, Duration timeout) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "realtime-" + policy.name());
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        Scheduler scheduler = (task, delayNanos) -> {
            ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        };
        try {
            Run run = new Run(scenario, seed, Ticker.system(), scheduler, false);
            // Everything, the submission included, runs on the one scheduler thread, as in
            // virtual time; only the clock differs.
            executor.execute(() -> policy.start(run));
            try {
                run.finished().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException(policy.name() + " did not finish " + scenario.id() + " within " + timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
            return run.result(policy);
        } finally {
            executor.shutdownNow();
        }
    }
}
