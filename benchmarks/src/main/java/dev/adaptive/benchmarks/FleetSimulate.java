package dev.adaptive.benchmarks;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.report.FleetSummary;
import dev.adaptive.benchmarks.report.Json;
import dev.adaptive.benchmarks.report.Summary;
import dev.adaptive.benchmarks.sim.FleetPolicy;
import dev.adaptive.benchmarks.sim.FleetRun;
import dev.adaptive.benchmarks.sim.FleetRunResult;
import dev.adaptive.benchmarks.sim.Simulator;
import dev.adaptive.fleet.FleetMember;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * The fleet benchmark, in virtual time: K = 2, 4, 8 clients, each with its own queue of
 * {@code items / K} items, against one server of the model (S2's, S6's and a flat cap of 12),
 * seeds 1..9. Policies: fixed totals split evenly (the best is the fleet's oracle), independent
 * Adaptive clients, coordinated Adaptive clients ({@link FleetMember} on an in-memory
 * coordinator, with the default heartbeat and with 200 ms; with the default rules and with the
 * earlier even-split ones), and Netflix's Vegas per client.
 * Writes {@code fleet.md} and {@code fleet.json}.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.FleetSimulate
 * </pre>
 *
 * Options: {@code --scenarios=S2,S6,F12}, {@code --clients=2,4,8}, {@code --seeds=9},
 * {@code --first-seed=1}, {@code --threads=<cores>}, {@code --max-total=40} (the fixed totals
 * swept are K..max-total), {@code --out=benchmarks/results}. With {@code --trace=<seed>} it writes
 * nothing: it runs the independent and the coordinated clients (the defaults) of the first
 * scenario and the first K with that seed and prints, every 10 ms of virtual time, the server's in
 * flight and every client's items done, local limit, ceiling, in flight, waiting calls and target
 * share, then each run's result.
 */
public final class FleetSimulate {

    private static final double TARGET_RATIO = 1.15;
    private static final Duration FAST_HEARTBEAT = Duration.ofMillis(200);

    private FleetSimulate() {
    }

    /** The summaries of one server and one K, the oracle first-class. */
    private record Cell(Scenario scenario, int k, FleetSummary oracle, List<FleetSummary> rows) {
        FleetSummary row(String policy) {
            return rows.stream().filter(r -> r.base().policy().equals(policy)).findFirst().orElseThrow();
        }
    }

    /**
     * @param args options, see the class documentation
     * @throws IOException if the results cannot be written
     */
    public static void main(String[] args) throws IOException {
        Map<String, String> opts = Options.parse(args, "scenarios", "clients", "seeds", "first-seed", "threads",
                "max-total", "out", "trace");
        List<Scenario> scenarios = opts.containsKey("scenarios")
                ? Options.list(opts.get("scenarios")).stream().map(Scenario::byId).toList() : Scenario.fleet();
        List<Integer> ks = Options.list(opts.getOrDefault("clients", "2,4,8")).stream().map(Integer::parseInt).toList();
        int seedCount = Options.positive(opts, "seeds", 9);
        int firstSeed = Options.positive(opts, "first-seed", 1);
        int threads = Options.positive(opts, "threads", Runtime.getRuntime().availableProcessors());
        int maxTotal = Options.positive(opts, "max-total", 40);
        Path out = Path.of(opts.getOrDefault("out", "benchmarks/results"));
        if (opts.containsKey("trace")) {
            long seed = Options.positive(opts, "trace", 1);
            for (FleetPolicy p : List.of(FleetPolicy.independent(), FleetPolicy.learning(FleetMember.DEFAULT_HEARTBEAT))) {
                System.out.println("# " + p.name() + ", " + scenarios.get(0).id() + " K=" + ks.get(0) + " seed " + seed);
                FleetRunResult r = FleetRun.run(p, scenarios.get(0), ks.get(0), seed, System.out::println);
                System.out.println(r);
            }
            return;
        }

        long started = System.nanoTime();
        List<Cell> cells = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (Scenario s : scenarios) {
                for (int k : ks) {
                    long t0 = System.nanoTime();
                    Cell cell = cell(pool, s, k, maxTotal, firstSeed, seedCount);
                    cells.add(cell);
                    System.out.println(section(cell));
                    System.out.printf(Locale.ROOT, "(%s K=%d simulated in %.1f s)%n%n", s.id(), k,
                            (System.nanoTime() - t0) / 1e9);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        Files.createDirectories(out);
        StringBuilder md = new StringBuilder();
        md.append("# Fleet simulation results (virtual time)\n\n")
                .append("Generated by `java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.FleetSimulate`")
                .append(String.format(Locale.ROOT, " in %.0f s on %d thread(s); seeds %d..%d; fixed totals K..%d.",
                        seconds, threads, firstSeed, firstSeed + seedCount - 1, maxTotal))
                .append(" Model, servers and method: `docs/benchmarks.md` (Fleets).\n\n")
                .append(headline(cells)).append('\n');
        for (Cell c : cells) {
            md.append(section(c)).append('\n');
        }
        Files.writeString(out.resolve("fleet.md"), md.toString());
        Files.writeString(out.resolve("fleet.json"), Json.write(json(cells, firstSeed, seedCount, maxTotal)));
        System.out.println(headline(cells));
        System.out.printf(Locale.ROOT, "wrote %s (%.1f s)%n", out.toAbsolutePath(), seconds);
    }

    private static List<FleetPolicy> policies(int k, int maxTotal) {
        List<FleetPolicy> out = new ArrayList<>();
        out.add(FleetPolicy.independent());
        out.add(FleetPolicy.coordinated(FleetMember.DEFAULT_HEARTBEAT));
        out.add(FleetPolicy.coordinated(FAST_HEARTBEAT));
        out.add(FleetPolicy.learning(FleetMember.DEFAULT_HEARTBEAT));
        out.add(FleetPolicy.learning(FAST_HEARTBEAT));
        out.add(FleetPolicy.netflixVegas());
        for (int total = k; total <= maxTotal; total++) {
            out.add(FleetPolicy.fixedTotal(total));
        }
        return out;
    }

    private static Cell cell(ExecutorService pool, Scenario s, int k, int maxTotal, int firstSeed, int seeds) {
        Map<FleetPolicy, List<Future<FleetRunResult>>> futures = new LinkedHashMap<>();
        for (FleetPolicy p : policies(k, maxTotal)) {
            List<Future<FleetRunResult>> fs = new ArrayList<>();
            for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
                long sd = seed;
                fs.add(pool.submit(() -> FleetRun.run(p, s, k, sd)));
            }
            futures.put(p, fs);
        }
        List<FleetSummary> rows = new ArrayList<>();
        for (List<Future<FleetRunResult>> fs : futures.values()) {
            List<FleetRunResult> runs = new ArrayList<>();
            for (Future<FleetRunResult> f : fs) {
                runs.add(Simulator.get(f));
            }
            rows.add(FleetSummary.of(runs));
        }
        FleetSummary oracle = rows.stream().filter(r -> r.base().family().equals("fixed"))
                .min(Comparator.comparingDouble(r -> r.base().wallMedian())).orElseThrow();
        double wall = oracle.base().wallMedian();
        return new Cell(s, k, oracle.withRatio(wall), rows.stream().map(r -> r.withRatio(wall)).toList());
    }

    private static String coordinatedDefault() {
        return FleetPolicy.learning(FleetMember.DEFAULT_HEARTBEAT).name();
    }

    /** The target of a cell, for the coordinated fleet at the default heartbeat. */
    private static List<String> misses(Cell c) {
        FleetSummary co = c.row(coordinatedDefault());
        FleetSummary in = c.row(FleetPolicy.independent().name());
        List<String> misses = new ArrayList<>();
        if (co.base().ratio() > TARGET_RATIO) {
            misses.add(String.format(Locale.ROOT, "%.2f > %.2f × oracle", co.base().ratio(), TARGET_RATIO));
        }
        if (co.base().ratio() > in.base().ratio()) {
            misses.add(String.format(Locale.ROOT, "%.2f > independent %.2f", co.base().ratio(), in.base().ratio()));
        }
        if (co.base().arrivalsMax() > 0) {
            misses.add(co.base().arrivalsMax() + " arrivals inside a window");
        }
        if (co.base().failedMax() > 0) {
            misses.add(co.base().failedMax() + " failed");
        }
        if (co.overCeilingMax() > 0) {
            misses.add(co.overCeilingMax() + " admissions over the ceiling");
        }
        if (co.lastFirstMax() > FleetMember.DEFAULT_HEARTBEAT.toMillis()) {
            misses.add(String.format(Locale.ROOT, "last first request at %.0f ms", co.lastFirstMax()));
        }
        return misses;
    }

    private static String headline(List<Cell> cells) {
        StringBuilder sb = new StringBuilder();
        sb.append("| server, K | oracle (best fixed total) | independent Adaptive | coordinated, even split, 1 s"
                + " | coordinated, even split, 200 ms | **coordinated, 1 s (the defaults)** | coordinated, 200 ms"
                + " | coordinated, the defaults, × (oracle + Retry-After), flat caps"
                + " | Netflix Vegas per client | target (coordinated, the defaults: ≤ 1.15 × and ≤ independent,"
                + " 0 arrivals, 0 failed, 0 over the ceiling, first request within 1 s) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Cell c : cells) {
            List<String> misses = misses(c);
            FleetSummary co = c.row(coordinatedDefault());
            String plusRetryAfter = c.scenario().flat() ? String.format(Locale.ROOT, "%.2f", co.base().wallMedian()
                    / (c.oracle().base().wallMedian() + c.scenario().retryAfter().toMillis())) : "—";
            sb.append(String.format(Locale.ROOT, "| %s, K=%d | 1.00 (%s, %.0f ms) | %.2f | %.2f | %.2f | **%.2f** | %.2f | %s | %.2f | %s |%n",
                    c.scenario().id(), c.k(), c.oracle().base().policy(), c.oracle().base().wallMedian(),
                    c.row(FleetPolicy.independent().name()).base().ratio(),
                    c.row(FleetPolicy.coordinated(FleetMember.DEFAULT_HEARTBEAT).name()).base().ratio(),
                    c.row(FleetPolicy.coordinated(FAST_HEARTBEAT).name()).base().ratio(),
                    c.row(coordinatedDefault()).base().ratio(),
                    c.row(FleetPolicy.learning(FAST_HEARTBEAT).name()).base().ratio(), plusRetryAfter,
                    c.row(FleetPolicy.netflixVegas().name()).base().ratio(),
                    misses.isEmpty() ? "met" : "not met: " + String.join("; ", misses)));
        }
        return sb.toString();
    }

    static String section(Cell c) {
        Scenario s = c.scenario();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "## %s server (%s), K = %d: %d items in all, base %.0f ms, soft %d, hard %d, Retry-After %d ms%n%n",
                s.id(), s.name(), c.k(), s.items(), s.baseMillis(), s.soft(), s.hard(), s.retryAfter().toMillis()));
        sb.append("| policy | wall ms (median ± sd) | × oracle | failed (worst) | 429s (median / worst) | pauses (median / worst)"
                + " | arrivals inside any member's window (worst) | mean ceiling | mean in flight at the server"
                + " | last client's first request, ms (median / worst) | admissions over the ceiling (worst) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (FleetSummary r : displayRows(c)) {
            Summary b = r.base();
            String name = b.policy().equals(c.oracle().base().policy()) ? "**" + b.policy() + " (oracle)**" : b.policy();
            sb.append(String.format(Locale.ROOT, "| %s | %.0f ± %.0f | %.2f | %d | %s / %d | %s / %d | %d | %.1f | %.1f | %.0f / %.0f | %s |%n",
                    name, b.wallMedian(), b.wallSd(), b.ratio(), b.failedMax(), count(b.tooManyMedian()), b.tooManyMax(),
                    count(b.episodesMedian()), b.episodesMax(), b.arrivalsMax(), r.meanCeilingMedian(),
                    r.meanInflightMedian(), r.lastFirstMedian(), r.lastFirstMax(),
                    r.overCeilingMax() < 0 ? "n/a" : Long.toString(r.overCeilingMax())));
        }
        sb.append('\n').append("Fixed totals, median wall ms by total: ").append(c.rows().stream()
                .filter(r -> r.base().family().equals("fixed"))
                .map(r -> r.base().policy().substring("fixed total=".length()) + ":" + Math.round(r.base().wallMedian()))
                .collect(Collectors.joining(" "))).append('\n');
        return sb.toString();
    }

    /** The adaptive and peer rows, the oracle, and the fixed totals at half and twice it. */
    private static List<FleetSummary> displayRows(Cell c) {
        int best = Integer.parseInt(c.oracle().base().policy().substring("fixed total=".length()));
        List<String> fixed = List.of("fixed total=" + Math.max(c.k(), best / 2), c.oracle().base().policy(),
                "fixed total=" + best * 2);
        return c.rows().stream().filter(r -> !r.base().family().equals("fixed") || fixed.contains(r.base().policy()))
                .toList();
    }

    private static String count(double median) {
        return median == Math.rint(median) ? Long.toString((long) median) : String.format(Locale.ROOT, "%.1f", median);
    }

    private static Map<String, Object> json(List<Cell> cells, int firstSeed, int seeds, int maxTotal) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("generator", "dev.adaptive.benchmarks.FleetSimulate");
        root.put("firstSeed", firstSeed);
        root.put("seeds", seeds);
        root.put("fixedTotalMax", maxTotal);
        List<Object> out = new ArrayList<>();
        for (Cell c : cells) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("server", c.scenario().id());
            m.put("clients", c.k());
            m.put("oracle", c.oracle().base().policy());
            m.put("oracleWallMsMedian", c.oracle().base().wallMedian());
            List<String> misses = misses(c);
            m.put("targetMet", misses.isEmpty());
            m.put("targetMisses", misses);
            m.put("policies", c.rows().stream().map(FleetSummary::toJson).toList());
            out.add(m);
        }
        root.put("cells", out);
        return root;
    }
}
