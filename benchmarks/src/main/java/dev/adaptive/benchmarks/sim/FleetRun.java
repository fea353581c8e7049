package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.testing.FlakyDownstream;
import dev.adaptive.time.VirtualTime;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * K clients, each with its own queue of {@code items / K} items (the first {@code items mod K}
 * one more) and its own randomness, against one server of the scenario, whose {@code n} counts
 * every client's requests; all in one {@link VirtualTime}. The fleet's wall time is when its
 * last item ended.
 *
 * <p>Not thread-safe: a run lives on the thread that calls {@link #run(FleetPolicy, Scenario, int, long)}.
 */
public final class FleetRun {

    /** The fleet's ceiling and the server's in flight are sampled this often (virtual time). */
    private static final long SAMPLE_NANOS = 10_000_000L;

    private final VirtualTime time = new VirtualTime();
    private final FlakyDownstream server;
    private final List<Run> clients = new ArrayList<>();

    private FleetRun(Scenario scenario, int k, long seed) {
        server = scenario.downstream(time, time, seed, false);
        for (int i = 0; i < k; i++) {
            int items = scenario.items() / k + (i < scenario.items() % k ? 1 : 0);
            clients.add(new Run(scenario.withItems(items), seed * 1_000 + i, time, time, server));
        }
    }

    /**
     * @param policy   how the clients share the server
     * @param scenario the server and the fleet's items
     * @param k        the number of clients
     * @param seed     seeds the server and, with each client's index, the clients' jitter
     * @return the run's figures
     */
    public static FleetRunResult run(FleetPolicy policy, Scenario scenario, int k, long seed) {
        return run(policy, scenario, k, seed, null);
    }

    /**
     * @param policy   how the clients share the server
     * @param scenario the server and the fleet's items
     * @param k        the number of clients
     * @param seed     seeds the server and, with each client's index, the clients' jitter
     * @param trace    told, at every sample (10 ms of virtual time), the time in ms, the server's
     *                 in flight and every client's state; {@code null} for none
     * @return the run's figures
     */
    public static FleetRunResult run(FleetPolicy policy, Scenario scenario, int k, long seed, Consumer<String> trace) {
        if (k < 1 || scenario.items() < k) {
            throw new IllegalArgumentException("clients must be within [1, items]: " + k);
        }
        FleetRun run = new FleetRun(scenario, k, seed);
        return run.drive(policy, scenario, k, seed, trace);
    }

    private FleetRunResult drive(FleetPolicy policy, Scenario scenario, int k, long seed, Consumer<String> trace) {
        FleetPolicy.Fleet fleet = policy.start(this);
        CompletableFuture<Void> all = CompletableFuture.allOf(clients.stream().map(Run::finished)
                .toArray(CompletableFuture[]::new));
        double[] sums = new double[3];
        sample(fleet, all, sums, trace);
        all.thenRun(fleet.close());
        time.runUntilIdle();
        if (!time.uncaught().isEmpty()) {
            IllegalStateException e = new IllegalStateException(policy.name() + " on " + scenario.id() + " K=" + k
                    + " seed " + seed + ": " + time.uncaught().size() + " task(s) threw");
            time.uncaught().stream().limit(3).forEach(e::addSuppressed);
            throw e;
        }
        double wall = 0;
        double lastFirst = 0;
        int ok = 0;
        int failed = 0;
        int unfinished = 0;
        for (Run c : clients) {
            RunResult r = c.result(policy.name(), policy.family());
            wall = Math.max(wall, r.wallMillis());
            ok += r.ok();
            failed += r.failed();
            unfinished += r.unfinished();
            double first = c.firstAttemptMillis();
            lastFirst = first < 0 ? Double.POSITIVE_INFINITY : Math.max(lastFirst, first);
        }
        RunResult total = new RunResult(policy.name(), policy.family(), scenario.id() + " K=" + k, seed, wall, ok,
                failed, unfinished, server.stats());
        double n = Math.max(1, sums[2]);
        return new FleetRunResult(total, k, sums[0] / n, sums[1] / n, lastFirst, fleet.overCeiling().getAsLong());
    }

    private void sample(FleetPolicy.Fleet fleet, CompletableFuture<Void> all, double[] sums, Consumer<String> trace) {
        if (all.isDone()) {
            return;
        }
        sums[0] += fleet.ceiling().getAsInt();
        sums[1] += server.stats().inflight();
        sums[2]++;
        if (trace != null) {
            trace.accept(String.format(Locale.ROOT, "%6.0f ms server=%2d %s", time.nanoTime() / 1e6,
                    server.stats().inflight(), fleet.state().get()));
        }
        time.schedule(() -> sample(fleet, all, sums, trace), SAMPLE_NANOS);
    }

    List<Run> clients() {
        return clients;
    }

    VirtualTime time() {
        return time;
    }
}
