package dev.adaptive.benchmarks;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.sim.Catalog;
import dev.adaptive.benchmarks.sim.AdaptivePolicy;
import dev.adaptive.benchmarks.sim.Run;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prints how one Adaptive run decided, event by event: every limit change, every Retry-After
 * pause and, with {@code --decisions}, every algorithm decision with its metrics. For
 * understanding a result of {@link Simulate}, not for measuring.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.Trace --scenario=S2 --seed=1 --limit=vegas
 * </pre>
 */
public final class Trace {

    private Trace() {
    }

    /**
     * @param args {@code --scenario=S2 --seed=1 --limit=vegas|aimd|gradient2 [--decisions]}, or
     *             {@code --fixed=<c>} instead of {@code --limit} for a fixed concurrency
     */
    public static void main(String[] args) {
        Map<String, String> opts = Options.parse(args, "scenario", "seed", "limit", "fixed", "decisions");
        if (opts.containsKey("fixed") && opts.containsKey("limit")) {
            throw new IllegalArgumentException("--fixed and --limit exclude each other: " + opts.get("fixed") + ", "
                    + opts.get("limit"));
        }
        Scenario scenario = Scenario.byId(opts.getOrDefault("scenario", "S2"));
        long seed = Options.positive(opts, "seed", 1);
        boolean decisions = opts.containsKey("decisions");
        AdaptivePolicy policy = opts.containsKey("fixed") ? AdaptivePolicy.fixed(Options.positive(opts, "fixed", 1))
                : adaptive(scenario, opts.getOrDefault("limit", "vegas"));
        VirtualTime time = new VirtualTime();
        Run run = new Run(scenario, seed, time, time, false);
        long[] lastFirstStart = {0};
        int[] retries = {0};
        policy.start(run, e -> {
            if (e instanceof TraceEvent.TaskStart t) {
                if (t.attempt() == 1) {
                    lastFirstStart[0] = t.timeNanos();
                } else {
                    retries[0]++;
                }
            }
            print(e, decisions);
        });
        time.runUntilIdle();
        System.out.printf(Locale.ROOT, "last first attempt started at %.1f ms; %d retries%n", lastFirstStart[0] / 1e6,
                retries[0]);
        System.out.println(run.result(policy));
    }

    private static AdaptivePolicy adaptive(Scenario scenario, String limit) {
        String name = "adaptive " + limit;
        return (AdaptivePolicy) Catalog.adaptive(scenario).stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("limit must be vegas, aimd or gradient2: " + limit));
    }

    /**
     * @param e         an event
     * @param decisions whether to print decisions and task starts too, not only limit changes and pauses
     */
    static void print(TraceEvent e, boolean decisions) {
        if (e instanceof TraceEvent.ConcurrencyChange c) {
            System.out.printf(Locale.ROOT, "%9.1f ms  limit %d -> %d (%s)%n", c.timeNanos() / 1e6, c.from(), c.to(),
                    c.reason());
        } else if (e instanceof TraceEvent.RatePause p) {
            System.out.printf(Locale.ROOT, "%9.1f ms  pause for %s%n", p.timeNanos() / 1e6, p.retryAfter());
        } else if (decisions && e instanceof TraceEvent.TaskStart t) {
            System.out.printf(Locale.ROOT, "%9.1f ms  start #%d attempt %d limit=%d inflight=%d%n", t.timeNanos() / 1e6,
                    t.index(), t.attempt(), t.limit(), t.inflight());
        } else if (decisions && e instanceof TraceEvent.Decision d) {
            StringBuilder m = new StringBuilder();
            new TreeMap<>(d.metrics()).forEach((k, v) -> m.append(String.format(Locale.ROOT, " %s=%.3f", k, v)));
            System.out.printf(Locale.ROOT, "%9.1f ms  %s inflight=%d rtt=%.1f%s%n", d.timeNanos() / 1e6,
                    d.sample().outcome().getClass().getSimpleName(), d.sample().inflight(),
                    d.sample().rttNanos() / 1e6, m);
        }
    }
}
