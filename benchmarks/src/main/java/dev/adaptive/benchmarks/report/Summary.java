package dev.adaptive.benchmarks.report;

import dev.adaptive.benchmarks.sim.RunResult;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One policy's figures on one scenario over all its runs: wall time as median and standard
 * deviation, counts as medians, and the two "must be zero" figures (failed items, arrivals
 * during Retry-After) as the worst run, so that a zero means zero in every run.
 *
 * @param scenario       scenario id
 * @param policy         policy row label
 * @param family         policy family
 * @param wallMedian     median wall time, ms
 * @param wallSd         standard deviation of the wall time, ms
 * @param ratio          median wall time over the oracle's; NaN until {@link #withRatio(double)}
 * @param okMedian       median items ok
 * @param failedMax      most items failed in any run
 * @param tooManyMedian  median 429s
 * @param tooManyMax     most 429s in any run
 * @param episodesMedian median rate-limit episodes (Retry-After pauses the client met)
 * @param episodesMax    most rate-limit episodes in any run
 * @param errorsMedian   median 500s
 * @param peakMedian     median peak in-flight at the server
 * @param arrivalsMax    most arrivals during Retry-After in any run
 * @param knewMax        most arrivals during Retry-After sent after the client had read the 429,
 *                       in any run; -1 if the runs did not measure it
 * @param runs           the runs, in seed order
 */
public record Summary(String scenario, String policy, String family, double wallMedian, double wallSd, double ratio,
                      double okMedian, int failedMax, double tooManyMedian, long tooManyMax, double episodesMedian,
                      long episodesMax, double errorsMedian, double peakMedian,
                      long arrivalsMax, long knewMax, List<RunResult> runs) {

    /** Copies the runs. */
    public Summary {
        runs = List.copyOf(runs);
    }

    /**
     * @param runs at least one run, all of one policy on one scenario
     * @return their summary, without a ratio yet
     */
    public static Summary of(List<RunResult> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("runs must not be empty");
        }
        RunResult first = runs.get(0);
        return new Summary(first.scenario(), first.policy(), first.family(),
                Stats.median(values(runs, RunResult::wallMillis)), Stats.sd(values(runs, RunResult::wallMillis)),
                Double.NaN,
                Stats.median(values(runs, r -> r.ok())),
                (int) Stats.max(values(runs, r -> r.failed())),
                Stats.median(values(runs, r -> r.server().tooMany())),
                (long) Stats.max(values(runs, r -> r.server().tooMany())),
                Stats.median(values(runs, r -> r.server().rateLimitEpisodes())),
                (long) Stats.max(values(runs, r -> r.server().rateLimitEpisodes())),
                Stats.median(values(runs, r -> r.server().serverErrors())),
                Stats.median(values(runs, r -> r.server().peak())),
                (long) Stats.max(values(runs, r -> r.server().arrivalsDuringRetryAfter())),
                (long) Stats.max(values(runs, r -> r.server().arrivalsAfterClientKnew())),
                runs);
    }

    private static double[] values(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).toArray();
    }

    /** @param oracleWall the oracle's median wall time @return a copy with the ratio set */
    public Summary withRatio(double oracleWall) {
        return new Summary(scenario, policy, family, wallMedian, wallSd, wallMedian / oracleWall, okMedian, failedMax,
                tooManyMedian, tooManyMax, episodesMedian, episodesMax, errorsMedian, peakMedian, arrivalsMax, knewMax, runs);
    }

    /** @return the summary as JSON-ready maps, with every run */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("policy", policy);
        m.put("family", family);
        m.put("wallMsMedian", wallMedian);
        m.put("wallMsSd", wallSd);
        m.put("ratioToOracle", ratio);
        m.put("okMedian", okMedian);
        m.put("failedMax", failedMax);
        m.put("tooManyMedian", tooManyMedian);
        m.put("tooManyMax", tooManyMax);
        m.put("rateLimitEpisodesMedian", episodesMedian);
        m.put("rateLimitEpisodesMax", episodesMax);
        m.put("serverErrorsMedian", errorsMedian);
        m.put("peakMedian", peakMedian);
        m.put("arrivalsDuringRetryAfterMax", arrivalsMax);
        if (knewMax >= 0) {
            m.put("arrivalsAfterClientKnewMax", knewMax);
        }
        m.put("runs", runs.stream().map(Summary::runJson).toList());
        return m;
    }

    private static Map<String, Object> runJson(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seed", r.seed());
        m.put("wallMs", r.wallMillis());
        m.put("ok", r.ok());
        m.put("failed", r.failed());
        m.put("unfinished", r.unfinished());
        m.put("arrivals", r.server().arrivals());
        m.put("tooMany", r.server().tooMany());
        m.put("rateLimitEpisodes", r.server().rateLimitEpisodes());
        m.put("serverErrors", r.server().serverErrors());
        m.put("peak", r.server().peak());
        m.put("arrivalsDuringRetryAfter", r.server().arrivalsDuringRetryAfter());
        if (r.server().arrivalsAfterClientKnew() >= 0) {
            m.put("arrivalsAfterClientKnew", r.server().arrivalsAfterClientKnew());
        }
        return m;
    }
}
