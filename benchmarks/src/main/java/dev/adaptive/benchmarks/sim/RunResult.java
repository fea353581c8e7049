package dev.adaptive.benchmarks.sim;

import dev.adaptive.testing.DownstreamStats;

/**
 * The figures of one run.
 *
 * @param policy     the policy's row label
 * @param family     the policy's family
 * @param scenario   the scenario id
 * @param seed       the seed
 * @param wallMillis time from the start until the last item ended
 * @param ok         items that ended with a result
 * @param failed     items that ended with an error, or never ended
 * @param unfinished items that never ended (a stuck policy); included in {@code failed}
 * @param server     what the server saw
 */
public record RunResult(String policy, String family, String scenario, long seed, double wallMillis, int ok,
                        int failed, int unfinished, DownstreamStats server) {
}
