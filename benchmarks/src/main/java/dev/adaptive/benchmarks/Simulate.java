package dev.adaptive.benchmarks;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.report.ConcurrencyChart;
import dev.adaptive.benchmarks.report.Json;
import dev.adaptive.benchmarks.report.MarkdownTable;
import dev.adaptive.benchmarks.report.Summary;
import dev.adaptive.benchmarks.report.Target;
import dev.adaptive.benchmarks.sim.Catalog;
import dev.adaptive.benchmarks.sim.Policy;
import dev.adaptive.benchmarks.sim.Run;
import dev.adaptive.benchmarks.sim.ScenarioResult;
import dev.adaptive.benchmarks.sim.Simulator;
import dev.adaptive.benchmarks.sim.VirtualRunner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * The virtual-time simulations: every policy (Adaptive with each algorithm, fixed c = 1..128,
 * Netflix, Resilience4j, Failsafe) on a set of scenarios with seeds 1..9, side by side. Prints
 * the tables and writes {@code <set>.md} and {@code <set>.json} to the output directory, and
 * {@code s2-concurrency.svg} when the set has S2. The sets: {@code simulation} (S1, S2, S4, S6;
 * the default), {@code robustness} (S2-tight, S2-loose, S2-slow, S2-fast, S7, S4-200),
 * {@code flat-cap} (F1, F2, F3), {@code held-out} (H1, H2, H3: shapes the engine was not
 * tuned on), {@code random} (24 servers drawn at random), {@code rate} (RL1-RL4: token-bucket
 * rate limits in front of flat latency) and {@code silent} (F1-F3 and RL1-RL4 answering their
 * 429s without a {@code Retry-After}: {@code F1-noRA} and so on).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate --set=robustness
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate --set=flat-cap
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate --set=held-out
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate --set=rate
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate --set=silent
 * </pre>
 *
 * Options: {@code --set=simulation}, {@code --scenarios=} (a subset of the set's, or others; the
 * files keep the set's name), {@code --seeds=9} (that many seeds),
 * {@code --first-seed=1} (a different range checks that a result does not hang on seeds 1..9),
 * {@code --threads=<cores>}, {@code --max-fixed=128} (the sweep is c = 1..max-fixed),
 * {@code --families=adaptive,fixed,netflix,resilience4j,failsafe} (a subset runs faster; the
 * fixed family is always run, it gives the oracle), {@code --out=benchmarks/results},
 * {@code --random-seed=20261202} (with {@code --set=random}: another family of servers drawn the
 * same way, written to {@code random-<seed>.md}; its ids, {@code R1@<seed>}.., work in
 * {@code --scenarios=} and in {@code Trace} too).
 */
public final class Simulate {

    private Simulate() {
    }

    /**
     * @param args options, see the class documentation
     * @throws IOException if the results cannot be written
     */
    public static void main(String[] args) throws IOException {
        Map<String, String> opts = Options.parse(args, "set", "scenarios", "seeds", "threads", "max-fixed", "out", "families", "first-seed",
                "random-seed");
        long randomSeed = opts.containsKey("random-seed") ? Options.positive(opts, "random-seed", 1)
                : Scenario.RANDOM_SEED;
        String set = opts.getOrDefault("set", "simulation");
        List<Scenario> scenarios = opts.containsKey("scenarios")
                ? Options.list(opts.get("scenarios")).stream().map(Scenario::byId).toList() : set(set, randomSeed);
        // Another random family goes to files of its own: the committed random.md stays the committed family's.
        String file = set.equals("random") && randomSeed != Scenario.RANDOM_SEED ? set + "-" + randomSeed : set;
        int seedCount = Options.positive(opts, "seeds", 9);
        int threads = Options.positive(opts, "threads", Runtime.getRuntime().availableProcessors());
        int maxFixed = Options.positive(opts, "max-fixed", Catalog.MAX_FIXED);
        Path out = Path.of(opts.getOrDefault("out", "benchmarks/results"));
        List<String> families = Options.list(opts.getOrDefault("families",
                "adaptive,fixed,netflix,resilience4j,failsafe"));
        int firstSeed = Options.positive(opts, "first-seed", 1);
        List<Long> seeds = LongStream.range(firstSeed, firstSeed + seedCount).boxed().toList();

        long started = System.nanoTime();
        List<ScenarioResult> results = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Simulator simulator = new Simulator(pool);
            for (Scenario s : scenarios) {
                long t0 = System.nanoTime();
                List<Policy> policies = Catalog.all(s, maxFixed).stream()
                        .filter(p -> p.family().equals("fixed") || families.contains(p.family())).toList();
                ScenarioResult r = simulator.run(s, policies, seeds);
                results.add(r);
                System.out.println(section(r));
                System.out.printf(Locale.ROOT, "(%s simulated in %.1f s)%n%n", s.id(), (System.nanoTime() - t0) / 1e9);
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        Files.createDirectories(out);
        StringBuilder md = new StringBuilder();
        md.append("# Simulation results (virtual time)\n\n")
                .append("Generated by `java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Simulate")
                .append(set.equals("simulation") ? "" : " --set=" + set)
                .append(file.equals(set) ? "" : " --random-seed=" + randomSeed).append('`')
                .append(String.format(Locale.ROOT, " in %.0f s on %d thread(s); seeds 1..%d; fixed sweep c = 1..%d.",
                        seconds, threads, seedCount, maxFixed))
                .append(" Model, scenarios and method: `docs/benchmarks.md`.\n\n");
        for (ScenarioResult r : results) {
            md.append(section(r)).append('\n');
        }
        Files.writeString(out.resolve(file + ".md"), md.toString());
        Files.writeString(out.resolve(file + ".json"), Json.write(json(results, seedCount, maxFixed)));
        if (scenarios.contains(Scenario.S2) && families.size() == 5) {
            ScenarioResult s2 = results.get(scenarios.indexOf(Scenario.S2));
            Files.writeString(out.resolve("s2-concurrency.svg"), chart(s2));
        }
        System.out.printf(Locale.ROOT, "wrote %s (%.1f s)%n", out.toAbsolutePath(), seconds);
    }

    private static List<Scenario> set(String name, long randomSeed) {
        return switch (name) {
            case "simulation" -> Scenario.simulated();
            case "robustness" -> Scenario.robustness();
            case "flat-cap" -> Scenario.flatCap();
            case "held-out" -> Scenario.heldOut();
            case "random" -> Scenario.random(24, randomSeed);
            case "rate" -> Scenario.rateLimits();
            case "silent" -> Scenario.silent();
            default -> throw new IllegalArgumentException(
                    "set must be simulation, robustness, flat-cap, held-out, random, rate or silent: " + name);
        };
    }

    static String section(ScenarioResult r) {
        Scenario s = r.scenario();
        StringBuilder sb = new StringBuilder();
        if (s.rateLimited()) {
            sb.append(String.format(Locale.ROOT,
                    "## %s %s: %d items, base %.0f ms flat at any load, %.0f requests per second with a burst of %d,"
                            + " jitter %.2f, retries %d%n%n",
                    s.id(), s.name(), s.items(), s.baseMillis(), s.ratePerSecond(), s.rateBurst(), s.jitter(),
                    s.retries()));
            sb.append(String.format(Locale.ROOT, "A token bucket: past the burst, a request that finds no token is"
                    + " refused with a 429 %s. Floor (the burst at once, then the rate): %.0f ms.%n%n",
                    s.announcesRetryAfter() ? "whose Retry-After is the time to the next token in whole seconds,"
                            + " rounded up (1 s)" : "without a Retry-After",
                    (s.items() - s.rateBurst()) / s.ratePerSecond() * 1000));
        } else {
            sb.append(String.format(Locale.ROOT,
                    "## %s %s: %d items, base %.0f ms, soft %d, hard %d, %s, jitter %.2f, tail %s, transient %.2f, retries %d%n%n",
                    s.id(), s.name(), s.items(), s.baseMillis(), s.soft(), s.hard(),
                    s.announcesRetryAfter() ? "Retry-After " + s.retryAfter().toMillis() + " ms" : "no Retry-After",
                    s.jitter(),
                    s.tailProbability() > 0 ? String.format(Locale.ROOT, "%.0f%% × %.0f", s.tailProbability() * 100,
                            s.tailFactor()) : "none",
                    s.transientProbability(), s.retries()));
        }
        if (s.clientMax() != Scenario.UNBOUNDED) {
            sb.append(String.format(Locale.ROOT, "Every adaptive policy (Adaptive's and Netflix's) runs with a maximum"
                    + " limit of %d; the fixed sweep goes to %d.%n%n", s.clientMax(), s.clientMax()));
        }
        double retryAfterMillis = s.retryAfter().toMillis();
        boolean pauseOwed = (s.rateLimited() || s.flat()) && s.announcesRetryAfter();
        if (!s.announcesRetryAfter()) {
            sb.append("Silent 429s: the server refuses as its announcing twin does but says no Retry-After, so it"
                    + " opens no window (no pauses or arrivals during Retry-After to count) and a client can only"
                    + " back off; the reference is the oracle. Peers retry a 429 after the same backoff as an"
                    + " error.\n\n");
        } else if (s.rateLimited()) {
            sb.append(String.format(Locale.ROOT, "The rate gives no warning in the latency: the reference is the oracle"
                    + " plus one Retry-After (%.0f ms), the least a client that must be refused to find the rate"
                    + " pays.%n%n", r.oracle().wallMedian() + retryAfterMillis));
        } else if (s.flat()) {
            sb.append(String.format(Locale.ROOT, "Flat latency up to the cap of %d: the reference is the oracle plus one"
                    + " Retry-After (%.0f ms), the least a client that must touch the cap to find it pays.%n%n",
                    s.hard(), r.oracle().wallMedian() + retryAfterMillis));
        }
        sb.append(MarkdownTable.render(r.displayRows(), r.oracle().policy(),
                pauseOwed ? r.oracle().wallMedian() + retryAfterMillis : 0)).append('\n');
        for (Target t : Target.of(s.id())) {
            if (r.rows().stream().anyMatch(x -> x.policy().equals(t.policy()))) {
                sb.append("Target: ").append(t.verdict(r.row(t.policy()), retryAfterMillis)).append("\n\n");
            }
        }
        sb.append("Fixed sweep, median wall ms by c: ").append(r.rows().stream()
                .filter(x -> x.family().equals("fixed"))
                .map(x -> x.policy().substring("fixed c=".length()) + ":" + Math.round(x.wallMedian()))
                .collect(Collectors.joining(" "))).append("\n");
        return sb.toString();
    }

    private static Map<String, Object> json(List<ScenarioResult> results, int seeds, int maxFixed) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("generator", "dev.adaptive.benchmarks.Simulate");
        root.put("seeds", seeds);
        root.put("fixedSweepMax", maxFixed);
        List<Object> scenarios = new ArrayList<>();
        for (ScenarioResult r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", r.scenario().id());
            m.put("name", r.scenario().name());
            m.put("oracle", r.oracle().policy());
            m.put("oracleWallMsMedian", r.oracle().wallMedian());
            double retryAfterMillis = r.scenario().retryAfter().toMillis();
            List<Object> targets = new ArrayList<>();
            for (Target t : Target.of(r.scenario().id())) {
                if (r.rows().stream().anyMatch(x -> x.policy().equals(t.policy()))) {
                    Map<String, Object> tm = new LinkedHashMap<>();
                    tm.put("policy", t.policy());
                    tm.put("maxRatio", t.maxRatio());
                    tm.put("reference", t.plusRetryAfter() ? "oracle + Retry-After" : "oracle");
                    tm.put("maxPauses", t.maxPauses());
                    tm.put("maxTooMany", t.maxTooMany());
                    tm.put("met", t.met(r.row(t.policy()), retryAfterMillis));
                    targets.add(tm);
                }
            }
            m.put("targets", targets);
            m.put("policies", r.rows().stream().map(Summary::toJson).toList());
            scenarios.add(m);
        }
        root.put("scenarios", scenarios);
        return root;
    }

    private static String chart(ScenarioResult s2) {
        Policy adaptive = Catalog.adaptive().get(0);
        Summary best = s2.bestPeer();
        Policy peer = Catalog.peers(s2.scenario()).stream().filter(p -> p.name().equals(best.policy()))
                .findFirst().orElseThrow();
        Run a = VirtualRunner.runTraced(adaptive, s2.scenario(), 1, true);
        Run b = VirtualRunner.runTraced(peer, s2.scenario(), 1, true);
        return ConcurrencyChart.svg("S2 (seed 1): requests in flight at the server",
                List.of(new ConcurrencyChart.Series(adaptive.name(), a.server().concurrencyTrace()),
                        new ConcurrencyChart.Series(peer.name() + " (best peer)", b.server().concurrencyTrace())),
                s2.scenario().soft(), s2.scenario().hard());
    }
}
