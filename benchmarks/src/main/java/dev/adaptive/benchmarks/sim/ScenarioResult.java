package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.benchmarks.report.Summary;

import java.util.List;

/**
 * Every policy's summary on one scenario, ratios set against the oracle.
 *
 * @param scenario the workload
 * @param oracle   the best fixed concurrency's summary
 * @param rows     every policy's summary, in catalog order (the sweep included)
 */
public record ScenarioResult(Scenario scenario, Summary oracle, List<Summary> rows) {

    /** Copies the rows. */
    public ScenarioResult {
        rows = List.copyOf(rows);
    }

    /** @param policy a row label @return that policy's summary */
    public Summary row(String policy) {
        return rows.stream().filter(s -> s.policy().equals(policy)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no policy named " + policy));
    }

    /** @return the rows worth a table: adaptive, the oracle, the three fixed guesses, the peers */
    public List<Summary> displayRows() {
        return rows.stream().filter(s -> !s.family().equals("fixed")
                || s.policy().equals(oracle.policy())
                || scenario.guesses().stream().anyMatch(c -> s.policy().equals("fixed c=" + c))).toList();
    }

    /** @return the best row outside Adaptive and the fixed sweep, by median wall time */
    public Summary bestPeer() {
        return rows.stream().filter(s -> !s.family().equals("fixed") && !s.family().equals("adaptive"))
                .min(java.util.Comparator.comparingDouble(Summary::wallMedian)).orElseThrow();
    }
}
