package dev.adaptive.benchmarks.report;

import dev.adaptive.benchmarks.sim.FleetRunResult;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One fleet policy's figures on one server and one K over all its seeds: the single-client
 * columns ({@link Summary}, over the fleet taken as one run) and the fleet's own.
 *
 * @param base              wall time, ratio, failed, 429s, pauses, arrivals inside any member's
 *                          announced window
 * @param meanCeilingMedian median of the runs' mean ceiling
 * @param meanInflightMedian median of the runs' mean in flight at the server
 * @param lastFirstMedian   median time the last client sent its first request, ms
 * @param lastFirstMax      the latest of those, ms
 * @param overCeilingMax    most admissions above the global ceiling in any run; -1 if not coordinated
 * @param runs              the runs, in seed order
 */
public record FleetSummary(Summary base, double meanCeilingMedian, double meanInflightMedian, double lastFirstMedian,
                           double lastFirstMax, long overCeilingMax, List<FleetRunResult> runs) {

    /** Copies the runs. */
    public FleetSummary {
        runs = List.copyOf(runs);
    }

    /**
     * @param runs at least one run, all of one policy on one server and K
     * @return their summary, without a ratio yet
     */
    public static FleetSummary of(List<FleetRunResult> runs) {
        return new FleetSummary(Summary.of(runs.stream().map(FleetRunResult::fleet).toList()),
                Stats.median(values(runs, FleetRunResult::meanCeiling)),
                Stats.median(values(runs, FleetRunResult::meanInflight)),
                Stats.median(values(runs, FleetRunResult::lastFirstMillis)),
                Stats.max(values(runs, FleetRunResult::lastFirstMillis)),
                (long) Stats.max(values(runs, r -> r.overCeiling())), runs);
    }

    private static double[] values(List<FleetRunResult> runs, ToDoubleFunction<FleetRunResult> f) {
        return runs.stream().mapToDouble(f).toArray();
    }

    /** @param oracleWall the oracle's median wall time @return a copy with the ratio set */
    public FleetSummary withRatio(double oracleWall) {
        return new FleetSummary(base.withRatio(oracleWall), meanCeilingMedian, meanInflightMedian, lastFirstMedian,
                lastFirstMax, overCeilingMax, runs);
    }

    /** @return the summary as JSON-ready maps, with every run */
    public Map<String, Object> toJson() {
        Map<String, Object> m = base.toJson();
        m.put("meanCeilingMedian", meanCeilingMedian);
        m.put("meanInflightMedian", meanInflightMedian);
        m.put("lastFirstRequestMsMedian", lastFirstMedian);
        m.put("lastFirstRequestMsMax", lastFirstMax);
        if (overCeilingMax >= 0) {
            m.put("admissionsOverCeilingMax", overCeilingMax);
        }
        List<Map<String, Object>> fleetRuns = runs.stream().map(r -> {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("seed", r.fleet().seed());
            x.put("meanCeiling", r.meanCeiling());
            x.put("meanInflight", r.meanInflight());
            x.put("lastFirstRequestMs", r.lastFirstMillis());
            x.put("admissionsOverCeiling", r.overCeiling());
            return x;
        }).toList();
        m.put("fleetRuns", fleetRuns);
        return m;
    }
}
