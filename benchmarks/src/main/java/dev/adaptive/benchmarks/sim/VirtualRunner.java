package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.time.VirtualTime;

/**
 * Runs a policy in {@link VirtualTime}: the whole run executes on the calling thread, as fast
 * as the events can be processed, and is reproducible from its seed. Stateless.
 */
public final class VirtualRunner {

    private VirtualRunner() {
    }

    /**
     * @param policy   the client strategy
     * @param scenario the workload
     * @param seed     the seed of server and client randomness
     * @return the run's figures
     */
    public static RunResult run(Policy policy, Scenario scenario, long seed) {
        return runTraced(policy, scenario, seed, false).result(policy);
    }

    /**
     * @param policy           the client strategy
     * @param scenario         the workload
     * @param seed             the seed of server and client randomness
     * @param traceConcurrency whether the server records in-flight over time
     * @return the finished run, for its result and its trace
     * @throws IllegalStateException if a policy's code failed inside the virtual scheduler
     */
    public static Run runTraced(Policy policy, Scenario scenario, long seed, boolean traceConcurrency) {
        VirtualTime time = new VirtualTime();
        Run run = new Run(scenario, seed, time, time, traceConcurrency);
        policy.start(run);
        // Peers may leave long timers behind (a bulkhead's wait timeout); the run's wall time is
        // when its last item ended, not when the scheduler went idle.
        time.runUntilIdle();
        if (!time.uncaught().isEmpty()) {
            IllegalStateException e = new IllegalStateException(policy.name() + " on " + scenario.id()
                    + " seed " + seed + ": " + time.uncaught().size() + " task(s) threw");
            time.uncaught().stream().limit(3).forEach(e::addSuppressed);
            throw e;
        }
        return run;
    }
}
