package dev.adaptive.benchmarks.report;

import java.util.Arrays;

/** Median and standard deviation of small samples. Stateless. */
public final class Stats {

    private Stats() {
    }

    /** @param values at least one value @return the median (mean of the middle two for even counts) */
    public static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("values must not be empty");
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** @param values at least one value @return the sample standard deviation, 0 for one value */
    public static double sd(double[] values) {
        int n = values.length;
        if (n < 2) {
            return 0;
        }
        double mean = Arrays.stream(values).average().orElse(0);
        double ss = 0;
        for (double v : values) {
            ss += (v - mean) * (v - mean);
        }
        return Math.sqrt(ss / (n - 1));
    }

    /** @param values at least one value @return the largest */
    public static double max(double[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }
}
