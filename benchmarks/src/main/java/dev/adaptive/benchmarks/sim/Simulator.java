package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.report.Summary;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Runs many policies over one scenario and many seeds in virtual time, in parallel across
 * runs (each run is single-threaded and independent, so the figures do not depend on the
 * number of threads). Not thread-safe; use one per thread.
 */
public final class Simulator {

    private final ExecutorService pool;

    /** @param pool runs the independent runs; the caller owns and shuts it down */
    public Simulator(ExecutorService pool) {
        this.pool = pool;
    }

    /**
     * @param scenario the workload
     * @param policies the policies; must include at least one of family {@code fixed}
     * @param seeds    the seeds, each run once per policy
     * @return every policy's summary with its ratio to the oracle
     */
    public ScenarioResult run(Scenario scenario, List<Policy> policies, List<Long> seeds) {
        Map<Policy, List<Future<RunResult>>> futures = new LinkedHashMap<>();
        for (Policy p : policies) {
            List<Future<RunResult>> fs = new ArrayList<>();
            for (long seed : seeds) {
                fs.add(pool.submit(() -> VirtualRunner.run(p, scenario, seed)));
            }
            futures.put(p, fs);
        }
        List<Summary> rows = new ArrayList<>();
        for (Map.Entry<Policy, List<Future<RunResult>>> e : futures.entrySet()) {
            List<RunResult> runs = new ArrayList<>();
            for (Future<RunResult> f : e.getValue()) {
                runs.add(get(f));
            }
            rows.add(Summary.of(runs));
        }
        // The oracle is the best operating point: a fixed concurrency that loses no item (one
        // that ends items early, its retries refused, is faster only because it does less work).
        Comparator<Summary> byWall = Comparator.comparingDouble(Summary::wallMedian);
        Summary oracle = rows.stream().filter(s -> s.family().equals("fixed") && s.failedMax() == 0).min(byWall)
                .or(() -> rows.stream().filter(s -> s.family().equals("fixed")).min(byWall))
                .orElseThrow(() -> new IllegalArgumentException("policies must include a fixed concurrency"));
        return new ScenarioResult(scenario, oracle.withRatio(oracle.wallMedian()),
                rows.stream().map(s -> s.withRatio(oracle.wallMedian())).toList());
    }

    /**
     * @param f   a run submitted to a pool
     * @param <T> its result type
     * @return its result; a run that threw rethrows its cause as an {@link IllegalStateException}
     */
    public static <T> T get(Future<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }
}
