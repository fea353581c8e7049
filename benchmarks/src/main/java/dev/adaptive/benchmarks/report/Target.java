package dev.adaptive.benchmarks.report;

import java.util.Locale;
import java.util.Map;

/**
 * The target for the default algorithm on one scenario: a bound on the ratio to the
 * oracle and, where stated, zero failed items and zero arrivals during Retry-After.
 *
 * @param scenario      scenario id
 * @param maxRatio      the largest acceptable median wall time over the oracle's
 * @param zeroFailures  whether every run must end with 0 failed items and 0 arrivals during Retry-After
 */
public record Target(String scenario, double maxRatio, boolean zeroFailures) {

    private static final Map<String, Target> TARGETS = Map.of(
            "S1", new Target("S1", 1.10, true),
            "S2", new Target("S2", 1.10, true),
            "S4", new Target("S4", 1.15, false),
            "S6", new Target("S6", 1.05, true));

    /** @param scenario a scenario id @return its target, or {@code null} if the issue sets none */
    public static Target of(String scenario) {
        return TARGETS.get(scenario);
    }

    /** @param s the default algorithm's summary @return whether it meets this target */
    public boolean met(Summary s) {
        return s.ratio() <= maxRatio && (!zeroFailures || (s.failedMax() == 0 && s.arrivalsMax() == 0));
    }

    /** @param s the default algorithm's summary @return one line: the figures, the target, the verdict */
    public String verdict(Summary s) {
        return String.format(Locale.ROOT, "%s: %s %.2f × oracle, worst failed %d, worst arrivals during Retry-After %d;"
                        + " target ≤ %.2f ×%s: %s",
                scenario, s.policy(), s.ratio(), s.failedMax(), s.arrivalsMax(), maxRatio,
                zeroFailures ? ", 0 failed, 0 arrivals" : "", met(s) ? "MET" : "NOT MET");
    }
}
