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

    /** @param args {@code --scenario=S2 --seed=1 --limit=vegas|aimd|gradient2 [--decisions]} */
    public static void main(String[] args) {
        Map<String, String> opts = Options.parse(args, "scenario", "seed", "limit", "decisions");
        Scenario scenario = Scenario.byId(opts.getOrDefault("scenario", "S2"));
        long seed = Options.positive(opts, "seed", 1);
        String name = "adaptive " + opts.getOrDefault("limit", "vegas");
        boolean decisions = opts.containsKey("decisions");
        AdaptivePolicy policy = (AdaptivePolicy) Catalog.adaptive(scenario).stream().filter(p -> p.name().equals(name))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("limit must be vegas, aimd or gradient2: "
                        + opts.get("limit")));
        VirtualTime time = new VirtualTime();
        Run run = new Run(scenario, seed, time, time, false);
        policy.start(run, e -> print(e, decisions));
        time.runUntilIdle();
        System.out.println(run.result(policy));
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
