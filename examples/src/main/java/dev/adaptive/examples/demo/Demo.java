package dev.adaptive.examples.demo;

import dev.adaptive.testing.FlakyHttpServer;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.time.Ticker;

import java.io.PrintStream;
import java.net.http.HttpClient;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The one-command demo: starts the flaky API of scenario S3 on 127.0.0.1 (or calls
 * {@code --url}), runs the same job with fixed concurrency too low, fixed too high, the
 * adaptive pool, the {@code adaptive:} Camel route and the Vert.x web-client wrapper, shows
 * progress, prints a table and writes an HTML report with charts. {@code --help} lists the
 * options.
 *
 * <pre>mvn -B -q -pl examples -am package exec:java -DskipTests</pre>
 */
public final class Demo {

    private static final int WARM_UP_REQUESTS = 20;

    private Demo() {
    }

    /**
     * @param args see {@code --help}
     * @throws Exception when the report cannot be written
     */
    public static void main(String[] args) throws Exception {
        DemoArgs parsed;
        try {
            parsed = DemoArgs.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(DemoArgs.USAGE);
            throw e;
        }
        if (parsed.help()) {
            System.out.println(DemoArgs.USAGE);
            return;
        }
        Path report = run(parsed, System.out);
        System.out.println("HTML report: " + report.toAbsolutePath().normalize().toUri());
    }

    /**
     * Runs the demo as {@code args} say.
     *
     * @param args the parsed command line
     * @param out  where progress and the table go
     * @return the report written
     * @throws Exception when the report cannot be written
     */
    public static Path run(DemoArgs args, PrintStream out) throws Exception {
        FlakyHttpServer server = args.url().isPresent() ? null : FlakyHttpServer.start(args.model());
        try {
            Target target = args.url().map(Target::new).orElseGet(() -> Target.itemsOf(server.uri()));
            String setup = setup(args, target);
            out.println(setup);
            if (server != null) {
                warmUp(target);
            }
            List<RunReport> reports = new ArrayList<>();
            for (String name : args.runs()) {
                DemoRun run = create(name, args.model());
                if (server != null) {
                    server.reset();
                }
                reports.add(runOne(run, target, args.items(), server, out));
            }
            out.println();
            out.print(ResultTable.text(reports));
            HtmlReport.write(args.report(), "Adaptive demo: one job, " + reports.size() + " ways", setup, reports);
            return args.report();
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    // The first run would otherwise pay for class loading and JIT of the HTTP stack on both
    // sides; a few sequential requests, below the soft cap, put all runs on an equal footing.
    private static void warmUp(Target target) {
        ExecutorService io = Executors.newFixedThreadPool(2, Threads.daemon("demo-warmup"));
        try {
            HttpClient client = HttpClient.newBuilder().executor(io).build();
            for (int k = 0; k < WARM_UP_REQUESTS; k++) {
                Http.get(client, target.uri(k)).join();
            }
        } finally {
            io.shutdownNow();
        }
    }

    /** @return the names of the runs, in the demo's default order */
    public static java.util.List<String> runNames() {
        return DemoArgs.ALL_RUNS.stream().map(name -> create(name, FlakyModel.s3()).name()).toList();
    }

    static DemoRun create(String name, FlakyModel model) {
        return switch (name) {
            case "fixed-low" -> new FixedConcurrencyRun(2);
            case "fixed-high" -> new FixedConcurrencyRun(32);
            case "pool" -> new AdaptivePoolRun();
            case "camel" -> new CamelRouteRun();
            case "vertx" -> new VertxClientRun();
            default -> throw new IllegalArgumentException("runs: unknown run: " + name);
        };
    }

    private static RunReport runOne(DemoRun run, Target target, int items, FlakyHttpServer server, PrintStream out) {
        TraceRecorder trace = new TraceRecorder(Ticker.system(), run.initialConcurrency());
        DemoRun.RunCounts counts;
        String error = null;
        try (ProgressLine progress = new ProgressLine(out, run.name(), items, trace)) {
            counts = run.run(target, items, trace);
        } catch (Exception | LinkageError e) {
            counts = new DemoRun.RunCounts(0, 0, 0);
            error = e.getClass().getSimpleName() + ": " + e.getMessage();
            out.println("  " + run.name() + " did not run: " + error);
        }
        long wall = trace.wallNanos();
        OptionalLong during = server == null ? OptionalLong.empty()
                : OptionalLong.of(server.arrivalsDuringRetryAfter());
        return new RunReport(run.name(), run.description(), wall, counts, trace.rateLimited(), during,
                trace.startNanos(), trace.events(), error);
    }

    private static String setup(DemoArgs args, Target target) {
        Optional<String> url = args.url();
        FlakyModel m = args.model();
        String where = url.isPresent() ? "target " + target.template()
                : String.format(Locale.ROOT, "embedded flaky API at %s (base %d ms, soft %d, hard %d, 429 with Retry-After: %d past the hard cap)",
                        target.template(), (long) m.baseMillis(), m.soft(), m.hard(), m.retryAfter().toSeconds());
        return args.items() + " items per run; " + where;
    }
}
