package dev.adaptive.benchmarks;

import dev.adaptive.benchmarks.http.AdaptiveJdkFace;
import dev.adaptive.benchmarks.http.ApacheRetryFace;
import dev.adaptive.benchmarks.http.CamelFace;
import dev.adaptive.benchmarks.http.FailsafeRetryFace;
import dev.adaptive.benchmarks.http.HttpFace;
import dev.adaptive.benchmarks.http.VertxFace;
import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.report.Json;
import dev.adaptive.benchmarks.report.MarkdownTable;
import dev.adaptive.benchmarks.report.Summary;
import dev.adaptive.benchmarks.sim.RunResult;
import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.trace.TraceListener;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The real-HTTP scenarios: the flaky model behind a JDK HTTP server on 127.0.0.1, and clients
 * that really send. S3 (the default): base 40 ms, soft 6, hard 12, 429 with
 * {@code Retry-After: 1} past the cap, 200 requests; S3-flat ({@code --scenario=S3-flat}): flat
 * 25 ms up to a cap of 16, then 429, 300 requests; a rate limit of the RL family
 * ({@code --scenario=RL1}, no target: written to {@code rl1-http.md}); any of these with silent
 * 429s ({@code --scenario=S3-flat-noRA}: no {@code Retry-After}, no target). Adaptive on its three faces, each with the default algorithm and no tuning for
 * the scenario: the core pool with {@code java.net.http}; a Camel route
 * {@code to("adaptive:s3")} whose consumer calls camel-http; the Vert.x
 * {@code AdaptiveWebClient}. The peers: Apache HttpClient 5 with its Retry-After-aware retry
 * strategy and Failsafe with a Retry-After delay function, each at the scenario's three guesses
 * (S3: c = 6, 10, 16; S3-flat: 8, 16, 24). Each client
 * runs once unmeasured (60 items, to warm up the JIT and the HTTP stacks), then {@code --runs}
 * times (default 3) against a fresh server, the clients interleaved run by run so that a change
 * in machine load hits all of them. Wall time runs from the first item sent to the last item
 * ended (a client's set-up is not in it). Prints the table and writes {@code s3-http.md} and
 * {@code s3-http.json} (S3-flat: {@code s3-flat-http.md}, {@code s3-flat-http.json}).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.HttpBench
 * </pre>
 */
public final class HttpBench {

    private static final int WARM_UP_ITEMS = 60;

    private HttpBench() {
    }

    /**
     * @param args {@code --scenario=S3|S3-flat|RL1..RL4 (each also with -noRA) --runs=3 --out=benchmarks/results}; {@code --adaptive-only --trace} prints
     *             how Adaptive decided on each face, for understanding a result; {@code --faces=camel,c=10}
     *             keeps only the clients whose label contains one of the given strings
     * @throws Exception if a server cannot start or a result cannot be written
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Options.parse(args, "runs", "out", "scenario", "trace", "adaptive-only", "faces");
        int runs = Options.positive(opts, "runs", 3);
        Path out = Path.of(opts.getOrDefault("out", "benchmarks/results"));
        Scenario s3 = Scenario.byId(opts.getOrDefault("scenario", "S3"));
        Scenario announced = s3.announced();
        if (announced != Scenario.S3 && announced != Scenario.S3_FLAT && !announced.rateLimited()) {
            throw new IllegalArgumentException("scenario must be S3, S3-flat or one of the rate limits RL1-RL4, or one"
                    + " of these with " + Scenario.SILENT_SUFFIX + " for silent 429s: " + s3.id());
        }
        String stem = s3 == Scenario.S3 ? "s3-http" : s3 == Scenario.S3_FLAT ? "s3-flat-http"
                : s3.id().toLowerCase(Locale.ROOT) + "-http";
        List<HttpFace> faces = new ArrayList<>();
        TraceListener trace = opts.containsKey("trace") ? e -> Trace.print(e, true) : null;
        faces.add(new AdaptiveJdkFace(trace));
        faces.add(new CamelFace(trace));
        faces.add(new VertxFace(trace));
        for (int c : opts.containsKey("adaptive-only") ? List.<Integer>of() : s3.guesses()) {
            faces.add(new ApacheRetryFace(c));
            faces.add(new FailsafeRetryFace(c));
        }
        if (opts.containsKey("faces")) {
            // e.g. --faces=camel,vert.x: only the clients whose row label contains one of them
            List<String> wanted = List.of(opts.get("faces").split(","));
            faces.removeIf(f -> wanted.stream().noneMatch(w -> f.name().contains(w)));
        }
        Map<HttpFace, List<RunResult>> results = new LinkedHashMap<>();
        faces.forEach(f -> results.put(f, new ArrayList<>()));
        long started = System.nanoTime();
        String loadAtStart = loadAverage();
        // One unmeasured run of each client first: the JIT and the HTTP stacks' first connections
        // would otherwise weigh on whichever client runs first.
        for (HttpFace face : faces) {
            once(face, s3.withItems(WARM_UP_ITEMS), 0);
        }
        for (int run = 1; run <= runs; run++) {
            for (HttpFace face : faces) {
                RunResult r = once(face, s3, run);
                results.get(face).add(r);
                System.out.printf(Locale.ROOT,
                        "run %d %-40s %6.0f ms  ok %d  429s %d  pauses %d  arrivals during Retry-After %d"
                                + " (after the client knew %d)%n",
                        run, face.name(), r.wallMillis(), r.ok(), r.server().tooMany(), r.server().rateLimitEpisodes(),
                        r.server().arrivalsDuringRetryAfter(), r.server().arrivalsAfterClientKnew());
            }
        }
        List<Summary> rows = results.values().stream().map(Summary::of).toList();
        if (rows.stream().noneMatch(s -> s.family().equals("peer"))) {
            rows.forEach(System.out::println);
            return;
        }
        Summary bestPeer = rows.stream().filter(s -> s.family().equals("peer"))
                .min(Comparator.comparingDouble(Summary::wallMedian)).orElseThrow();
        List<Summary> ratioed = rows.stream().map(s -> s.withRatio(bestPeer.wallMedian())).toList();
        String table = MarkdownTable.render(ratioed, bestPeer.policy())
                .replace("| × oracle |", "| × best peer |").replace(" (oracle)**", " (best peer)**");
        StringBuilder verdict = new StringBuilder();
        for (Summary adaptive : ratioed) {
            if (adaptive.family().equals("adaptive")) {
                verdict.append(!s3.announcesRetryAfter() ? silentReference(adaptive, bestPeer, s3)
                        : s3.rateLimited() ? rateReference(adaptive, bestPeer, s3)
                        : s3.flat() ? flatVerdict(adaptive, bestPeer, s3) : String.format(Locale.ROOT,
                        "Target: S3: %s %.2f × the best peer (%s), worst arrivals during Retry-After %d"
                                + " (%d after the client had read the 429); target ≤ 1.15 ×, 0 arrivals: %s%n",
                        adaptive.policy(), adaptive.ratio(), bestPeer.policy(), adaptive.arrivalsMax(), adaptive.knewMax(),
                        adaptive.ratio() <= 1.15 && adaptive.arrivalsMax() == 0 ? "MET" : "NOT MET"));
            }
        }
        String server = s3.rateLimited()
                ? String.format(Locale.ROOT, "flat %.0f ms (jitter %.2f) behind a token bucket of %.0f requests per"
                        + " second with a burst of %d, the wait to the next token rounded up to whole seconds",
                        s3.baseMillis(), s3.jitter(), s3.ratePerSecond(), s3.rateBurst())
                : s3.flat()
                ? String.format(Locale.ROOT, "flat %.0f ms up to a cap of %d", s3.baseMillis(), s3.hard())
                : String.format(Locale.ROOT, "the flaky model, base %.0f ms, soft %d, hard %d", s3.baseMillis(), s3.soft(),
                        s3.hard());
        String md = "# " + s3.id() + ": real HTTP on 127.0.0.1\n\n"
                + "Generated by `java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.HttpBench"
                + (s3 == Scenario.S3 ? "" : " --scenario=" + s3.id())
                + String.format(Locale.ROOT, " --runs=%d` in %.0f s; %d runs per client; median ± sd; wall time from"
                        + " the first item sent to the last ended. Load average (1 min) at the start %s, at the end %s.",
                        runs, (System.nanoTime() - started) / 1e9, runs, loadAtStart, loadAverage())
                + " Server: JDK HttpServer with " + server + (s3.announcesRetryAfter() ? ", `Retry-After: 1`, "
                        : ", 429s without `Retry-After` (silent: no window, so no pauses or arrivals during"
                        + " Retry-After to count; the peers' retry strategies then wait their default 1 s), ")
                + s3.items() + " requests."
                + " \"× best peer\" divides by the fastest Apache/Failsafe configuration."
                + " Every request says in a header how many 429s its client had read when it was sent (for"
                + " Adaptive's faces: when the limiter granted its slot), so that arrivals during Retry-After"
                + " split into all of them and those sent after the client had read the 429 that opened"
                + " the window.\n\n"
                + table + "\n" + verdict + "\n" + perRun(results);
        System.out.println();
        System.out.println(md);
        Files.createDirectories(out);
        Files.writeString(out.resolve(stem + ".md"), md);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("generator", "dev.adaptive.benchmarks.HttpBench");
        json.put("scenario", s3.id());
        json.put("runs", runs);
        json.put("loadAverageAtStart", loadAtStart);
        json.put("loadAverageAtEnd", loadAverage());
        json.put("bestPeer", bestPeer.policy());
        json.put("policies", ratioed.stream().map(Summary::toJson).toList());
        Files.writeString(out.resolve(stem + ".json"), Json.write(json));
    }

    /**
     * The flat-cap target: a client that must find the cap pays one Retry-After at least, so the
     * reference is the best fixed guess plus one; at most 3 × 429 by median, and no request sent
     * after the client had read the 429 whose window it arrived in.
     */
    private static String flatVerdict(Summary adaptive, Summary bestFixed, Scenario s) {
        double reference = bestFixed.wallMedian() + s.retryAfter().toMillis();
        double ratio = adaptive.wallMedian() / reference;
        boolean met = ratio <= 1.15 && adaptive.tooManyMedian() <= 3 && adaptive.knewMax() == 0
                && adaptive.failedMax() == 0;
        return String.format(Locale.ROOT,
                "Target: %s: %s %.2f × (best fixed + Retry-After) (%s + %d ms), median %s × 429 (worst %d),"
                        + " median %s pause(s) (worst %d), worst %d failed, worst arrivals during Retry-After %d"
                        + " (%d after the client had read the 429); target ≤ 1.15 ×, median ≤ 3 × 429, 0 after: %s%n",
                s.id(), adaptive.policy(), ratio, bestFixed.policy(), s.retryAfter().toMillis(),
                count(adaptive.tooManyMedian()), adaptive.tooManyMax(), count(adaptive.episodesMedian()),
                adaptive.episodesMax(), adaptive.failedMax(), adaptive.arrivalsMax(), adaptive.knewMax(),
                met ? "MET" : "NOT MET");
    }

    /**
     * Silent 429s have no target either: no Retry-After is owed, so the reference is the best
     * fixed guess itself, with the 429s beside it.
     */
    private static String silentReference(Summary adaptive, Summary bestFixed, Scenario s) {
        return String.format(Locale.ROOT,
                "%s: %s %.2f × the best fixed guess (%s), median %s × 429 (worst %d), worst %d failed%n",
                s.id(), adaptive.policy(), adaptive.wallMedian() / bestFixed.wallMedian(), bestFixed.policy(),
                count(adaptive.tooManyMedian()), adaptive.tooManyMax(), adaptive.failedMax());
    }

    /**
     * A rate limit has no target: the reference is the best fixed guess plus one Retry-After, as
     * for a flat cap (the rate gives no warning either), with the 429s and pauses beside it.
     */
    private static String rateReference(Summary adaptive, Summary bestFixed, Scenario s) {
        double reference = bestFixed.wallMedian() + s.retryAfter().toMillis();
        return String.format(Locale.ROOT,
                "%s: %s %.2f × (best fixed + Retry-After) (%s + %d ms), median %s × 429 (worst %d), median %s"
                        + " pause(s) (worst %d), worst %d failed, worst arrivals during Retry-After %d (%d after the"
                        + " client had read the 429)%n",
                s.id(), adaptive.policy(), adaptive.wallMedian() / reference, bestFixed.policy(),
                s.retryAfter().toMillis(), count(adaptive.tooManyMedian()), adaptive.tooManyMax(),
                count(adaptive.episodesMedian()), adaptive.episodesMax(), adaptive.failedMax(), adaptive.arrivalsMax(),
                adaptive.knewMax());
    }

    private static String count(double median) {
        return median == Math.rint(median) ? Long.toString((long) median) : String.format(Locale.ROOT, "%.1f", median);
    }

    /** Adaptive's runs one by one: the figures of real-time runs are often bimodal. */
    private static String perRun(Map<HttpFace, List<RunResult>> results) {
        StringBuilder sb = new StringBuilder("Adaptive's runs (wall ms / 429s / pauses):\n\n");
        for (Map.Entry<HttpFace, List<RunResult>> e : results.entrySet()) {
            if (!e.getKey().adaptive()) {
                continue;
            }
            sb.append("- ").append(e.getKey().name()).append(':');
            for (RunResult r : e.getValue()) {
                sb.append(String.format(Locale.ROOT, " %.0f / %d / %d;", r.wallMillis(), r.server().tooMany(),
                        r.server().rateLimitEpisodes()));
            }
            sb.setLength(sb.length() - 1);
            sb.append('\n');
        }
        return sb.toString();
    }

    private static RunResult once(HttpFace face, Scenario scenario, long run) throws Exception {
        try (FlakyHttpServer server = FlakyHttpServer.builder(scenario.server()).seed(run).start()) {
            scenario.shape(server.downstream());
            HttpFace.Tally tally = face.run(URI.create(server.url("/")), scenario);
            return new RunResult(face.name(), face.adaptive() ? "adaptive" : "peer", scenario.id(), run,
                    tally.wallNanos() / 1e6, tally.ok(), tally.failed(), 0, server.stats());
        }
    }

    /** @return the 1-minute load average, as {@code uptime} shows it; the machine is shared */
    static String loadAverage() {
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", load);
    }
}
