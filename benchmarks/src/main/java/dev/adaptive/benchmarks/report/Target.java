package dev.adaptive.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A target for one of Adaptive's algorithms, at its defaults, on one scenario: a bound on the
 * median wall time over the oracle's (or, on a flat cap, over the oracle's plus one
 * Retry-After, the least a client that must touch the cap to find it can pay), where stated
 * bounds on the Retry-After pauses and 429s of every run, and everywhere 0 failed items, 0
 * unfinished ones and 0 arrivals during Retry-After in every run.
 *
 * @param scenario        scenario id
 * @param policy          the policy's row label, for example {@code "adaptive vegas"}
 * @param maxRatio        the largest acceptable median wall time over the reference
 * @param plusRetryAfter  whether the reference is the oracle plus one Retry-After
 * @param maxPauses       most rate-limit episodes in any run; negative for no bound
 * @param maxTooMany      most 429s in any run; negative for no bound
 */
public record Target(String scenario, String policy, double maxRatio, boolean plusRetryAfter, int maxPauses,
                     int maxTooMany) {

    /** The default algorithm's row label. */
    public static final String VEGAS = "adaptive vegas";

    private static final List<String> ALTERNATIVES = List.of("adaptive aimd", "adaptive gradient2");

    private static final List<Target> TARGETS = targets();

    private static List<Target> targets() {
        List<Target> out = new ArrayList<>();
        for (String s : List.of("S1", "S6", "S7")) {
            out.add(new Target(s, VEGAS, 1.03, false, -1, -1));
        }
        for (String s : List.of("S2", "S2-slow", "S2-fast", "S2-tight")) {
            out.add(new Target(s, VEGAS, 1.06, false, -1, -1));
        }
        out.add(new Target("S4", VEGAS, 1.15, false, -1, -1));
        out.add(new Target("S4-200", VEGAS, 1.10, false, -1, -1));
        out.add(new Target("S2-loose", VEGAS, 1.15, false, -1, -1));
        for (String s : List.of("F1", "F2", "F3")) {
            out.add(new Target(s, VEGAS, 1.10, true, 1, 3));
        }
        for (String alternative : ALTERNATIVES) {
            for (String s : List.of("S1", "S2", "S6", "S7", "S2-slow", "S2-fast", "S2-tight", "S2-loose", "S4-200")) {
                out.add(new Target(s, alternative, 1.30, false, -1, -1));
            }
            // On a flat cap even a client that finds it at once pays one Retry-After: 1.33 x the
            // oracle on F1, 2 x on F2. The flat-cap reference is the oracle plus one Retry-After.
            for (String s : List.of("F1", "F2", "F3")) {
                out.add(new Target(s, alternative, 1.30, true, -1, -1));
            }
        }
        return List.copyOf(out);
    }

    /** @param scenario a scenario id @return its targets, the default algorithm's first; empty if none */
    public static List<Target> of(String scenario) {
        return TARGETS.stream().filter(t -> t.scenario.equals(scenario)).toList();
    }

    /**
     * @param s                 the policy's summary, ratio set against the oracle
     * @param retryAfterMillis  the scenario's Retry-After
     * @return whether it meets this target
     */
    public boolean met(Summary s, double retryAfterMillis) {
        return ratio(s, retryAfterMillis) <= maxRatio && s.failedMax() == 0 && s.arrivalsMax() == 0
                && (maxPauses < 0 || s.episodesMax() <= maxPauses) && (maxTooMany < 0 || s.tooManyMax() <= maxTooMany);
    }

    /** The median wall time over this target's reference. */
    private double ratio(Summary s, double retryAfterMillis) {
        if (!plusRetryAfter) {
            return s.ratio();
        }
        double oracle = s.wallMedian() / s.ratio();
        return s.wallMedian() / (oracle + retryAfterMillis);
    }

    /**
     * @param s                 the policy's summary, ratio set against the oracle
     * @param retryAfterMillis  the scenario's Retry-After
     * @return one line: the figures, the target, the verdict
     */
    public String verdict(Summary s, double retryAfterMillis) {
        String reference = plusRetryAfter ? "(oracle + Retry-After)" : "oracle";
        String bounds = (maxPauses >= 0 ? ", ≤ " + maxPauses + " pause(s)" : "")
                + (maxTooMany >= 0 ? ", ≤ " + maxTooMany + " × 429" : "");
        return String.format(Locale.ROOT, "%s: %s %.2f × %s, worst run: %d pause(s), %d × 429, %d failed,"
                        + " %d arrivals during Retry-After; target ≤ %.2f ×%s, 0 failed, 0 arrivals: %s",
                scenario, s.policy(), ratio(s, retryAfterMillis), reference, s.episodesMax(), s.tooManyMax(),
                s.failedMax(), s.arrivalsMax(), maxRatio, bounds, met(s, retryAfterMillis) ? "MET" : "NOT MET");
    }
}
