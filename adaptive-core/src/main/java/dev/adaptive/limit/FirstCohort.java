package dev.adaptive.limit;

import java.util.Arrays;

/**
 * What the first probe window says about the initial limit, which has no baseline to be judged
 * by: its attempts were admitted at every concurrency from one call up to the limit, so it
 * carries a gradient of its own. When the answers admitted with more calls in flight came back
 * surely slower (their order follows the in-flight count beyond what chance gives: Kendall's
 * rank statistic beyond its one-sided 5 % point, {@value #Z} standard deviations), latency grows with the
 * concurrency already below the initial limit. The answers admitted with at most half the limit
 * in flight are then the unloaded ones a baseline starts from, and the RTT at the limit itself
 * (which few of the window's answers ran at) is read from the Theil-Sen line through the window:
 * the median of the pairwise slopes, which Kendall's statistic is the test of, and the median
 * intercept. Without such an order, the window is one level, as for any later probe.
 *
 * @param unloaded      the RTTs of the answers admitted with at most {@code level} calls in flight
 * @param level         the most calls in flight any unloaded answer was admitted at
 * @param limitRttNanos the line's RTT at the limit
 */
record FirstCohort(long[] unloaded, int level, double limitRttNanos) {

    /**
     * Kendall's statistic must be this many standard deviations above zero: one-sided 5 %. Of the
     * five first answers of the default initial limit, that takes at most one pair out of order
     * (4 % of the windows of a downstream whose latency does not depend on the load).
     */
    private static final double Z = 1.645;
    /**
     * The largest first window read: the test and the line are over every pair of answers, so a
     * window of tens of thousands (an initial limit in the tens of thousands) would cost seconds
     * and gigabytes, and past 65,536 answers overflow the pairs' count. A first window this large
     * is taken as one level, as any later probe is.
     */
    static final int MAX_ANSWERS = 2_000;

    /**
     * @param rtts      the window's RTTs
     * @param inflights the in-flight count each was admitted at, same order
     * @param limit     the limit the window ran at
     * @return the split, or {@code null} if the window shows no gradient beyond chance
     */
    static FirstCohort of(long[] rtts, int[] inflights, int limit) {
        int n = rtts.length;
        if (n > MAX_ANSWERS) {
            return null;
        }
        int half = limit / 2;
        int low = 0;
        int lowLevel = 0;
        for (int f : inflights) {
            if (f >= 1 && f <= half) {
                low++;
                lowLevel = Math.max(lowLevel, f);
            }
        }
        if (low < 2 || n - low < 2) {
            return null;
        }
        // Kendall's S over the pairs with different in-flight counts: +1 where the one admitted
        // with more in flight was slower, -1 where it was faster.
        long s = 0;
        long pairs = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                int df = Integer.compare(inflights[i], inflights[j]);
                if (df == 0) {
                    continue;
                }
                pairs++;
                s += (long) df * Long.compare(rtts[i], rtts[j]);
            }
        }
        // Under no relation (ties in the counts aside) S has mean 0 and variance n(n-1)(2n+5)/18.
        double sd = Math.sqrt(n * (n - 1.0) * (2 * n + 5) / 18);
        if (pairs == 0 || s <= Z * sd) {
            return null;
        }
        double[] slopes = new double[(int) pairs];
        int k = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                if (inflights[i] != inflights[j]) {
                    slopes[k++] = (double) (rtts[j] - rtts[i]) / (inflights[j] - inflights[i]);
                }
            }
        }
        double slope = median(slopes);
        double[] intercepts = new double[n];
        for (int i = 0; i < n; i++) {
            intercepts[i] = rtts[i] - slope * (inflights[i] - 1);
        }
        double one = median(intercepts);
        double atLimit = one + slope * (limit - 1);
        if (!(one > 0) || !(atLimit > one)) {
            return null;
        }
        long[] unloaded = new long[low];
        int u = 0;
        for (int i = 0; i < n; i++) {
            if (inflights[i] >= 1 && inflights[i] <= half) {
                unloaded[u++] = rtts[i];
            }
        }
        return new FirstCohort(unloaded, lowLevel, atLimit);
    }

    /**
     * @param quantile which quantile, 0 to 1
     * @return that quantile of the unloaded answers: the baseline they start
     */
    double unloadedRtt(double quantile) {
        return RttHistory.quantileOfSorted(RttHistory.sortedCopy(unloaded), quantile);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FirstCohort c && level == c.level && Arrays.equals(unloaded, c.unloaded)
                && limitRttNanos == c.limitRttNanos;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(unloaded) + level) + Double.hashCode(limitRttNanos);
    }

    @Override
    public String toString() {
        return "FirstCohort[unloaded=" + Arrays.toString(unloaded) + ", level=" + level
                + ", limitRtt=" + limitRttNanos + "]";
    }
}
