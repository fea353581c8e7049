package dev.adaptive.examples.demo;


import dev.adaptive.testing.FlakyModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The demo's command line. Immutable; {@link #parse} fails with
 * {@link IllegalArgumentException} naming the flag and the value.
 *
 * @param url    a real URL to call instead of the embedded server ({@code {i}} = item index)
 * @param items  items per run, default 200
 * @param model  the embedded server's model, default S3
 * @param runs   which runs, in order, default all
 * @param report where the HTML report goes
 * @param help   whether to print the usage and stop
 */
public record DemoArgs(Optional<String> url, int items, FlakyModel model, List<String> runs, Path report,
                       boolean help) {

    /** Every run the demo knows, in its default order. */
    public static final List<String> ALL_RUNS = List.of("fixed-low", "fixed-high", "pool", "camel", "vertx");

    static final String USAGE = String.join("\n",
            "Usage: Demo [options]",
            "Runs the same job several ways against a flaky HTTP API and writes an HTML report.",
            "",
            "  --items N          items per run (default 200)",
            "  --url URL          call this URL instead of the embedded server; {i} is replaced by",
            "                     the item's index (default: embedded server on 127.0.0.1)",
            "  --base-ms MS       embedded server: latency of an unloaded request (default 40)",
            "  --soft N           embedded server: in flight before latency grows (default 6)",
            "  --hard N           embedded server: in flight before it answers 429 (default 12)",
            "  --retry-after S    embedded server: Retry-After of its 429s, seconds (default 1)",
            "  --runs LIST        comma-separated, from " + String.join(",", ALL_RUNS) + " (default all)",
            "  --report FILE      HTML report (default examples/target/adaptive-demo-report.html)",
            "  --help             this text");

    /**
     * @param args the command line
     * @return the parsed arguments
     */
    public static DemoArgs parse(String... args) {
        Optional<String> url = Optional.empty();
        int items = 200;
        FlakyModel s3 = FlakyModel.s3();
        int baseMs = (int) s3.baseMillis();
        int soft = s3.soft();
        int hard = s3.hard();
        int retryAfter = (int) s3.retryAfter().toSeconds();
        List<String> runs = ALL_RUNS;
        Path report = defaultReport();
        boolean help = false;
        for (int k = 0; k < args.length; k++) {
            String flag = args[k];
            if (flag.equals("--help") || flag.equals("-h")) {
                help = true;
                continue;
            }
            if (k + 1 >= args.length) {
                throw new IllegalArgumentException(flag.startsWith("--")
                        ? flag + " needs a value" : "unknown argument: " + flag);
            }
            String value = args[++k];
            switch (flag) {
                case "--url" -> url = Optional.of(value);
                case "--items" -> items = positive(flag, value);
                case "--base-ms" -> baseMs = positive(flag, value);
                case "--soft" -> soft = positive(flag, value);
                case "--hard" -> hard = positive(flag, value);
                case "--retry-after" -> retryAfter = positive(flag, value);
                case "--runs" -> runs = runs(value);
                case "--report" -> report = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option: " + flag);
            }
        }
        url.ifPresent(Target::new);
        return new DemoArgs(url, items, FlakyModel.of(baseMs, soft, hard, Duration.ofSeconds(retryAfter)), runs, report, help);
    }

    private static int positive(String flag, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below, with the flag's name
        }
        throw new IllegalArgumentException(flag + " must be a positive integer: " + value);
    }

    private static List<String> runs(String value) {
        List<String> runs = new ArrayList<>();
        for (String name : value.split(",")) {
            String trimmed = name.trim();
            if (!ALL_RUNS.contains(trimmed)) {
                throw new IllegalArgumentException("--runs must name runs among " + ALL_RUNS + ": " + value);
            }
            runs.add(trimmed);
        }
        return List.copyOf(runs);
    }

    // Run from the repository root (mvn -pl examples) or from examples/: target/ of this module.
    private static Path defaultReport() {
        Path module = Path.of("examples");
        Path base = module.resolve("pom.xml").toFile().isFile() ? module : Path.of("");
        return base.resolve("target").resolve("adaptive-demo-report.html");
    }

    @Override
    public String toString() {
        return "DemoArgs" + Arrays.asList(url, items, model, runs, report, help);
    }
}
