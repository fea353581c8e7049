package dev.adaptive.limit;

/** Sample rules shared by the adaptive limits. Stateless. */
final class Samples {

    /**
     * The smallest RTT a success may count for. A zero RTT (a cached answer, a coarse clock)
     * would make the baseline zero and every later probe look infinitely congested, and would
     * divide by zero in the ratios.
     */
    static final long MIN_RTT_NANOS = 1_000;

    private Samples() {
    }

    static long successRtt(Sample sample) {
        return Math.max(sample.rttNanos(), MIN_RTT_NANOS);
    }

    /**
     * When the limiter folded this sample, in its ticker's time: the attempt ended then. Attempts
     * admitted before that moment were admitted under the limit the decrease replaced.
     * Overflow wraps, which is what the {@code a - b < 0} comparison in {@link #isStale} expects.
     */
    static long decreaseTime(Sample sample) {
        return sample.startNanos() + sample.rttNanos();
    }

    /**
     * A congestion sample that started before the last multiplicative decrease says that the old,
     * higher limit was too high, which the decrease already acted on. Counting it again would
     * turn one overload, seen by all the attempts in flight at once, into a collapse to min.
     * An attempt admitted at the very instant of the decrease (a virtual clock, or a coarse
     * one) is placed by its concurrency: admitted with more in flight than the decreased limit
     * allows, it was admitted before the decrease (an attempt sent into the slot a fast failure
     * had just freed, while the refusal that caused the decrease was on its way, is refused with
     * the same burst).
     *
     * @param limit the limit now, after the last decrease and anything since
     */
    static boolean isStale(Sample sample, boolean decreased, long lastDecreaseNanos, double limit) {
        if (!decreased) {
            return false;
        }
        long since = sample.startNanos() - lastDecreaseNanos;
        return since < 0 || since == 0 && sample.inflight() > limit;
    }

    /** The interquartile range of a normal distribution, in standard deviations. */
    static final double IQR_PER_SD = 1.349;
    /** A sample median's standard error, in standard deviations over the root of the count: sqrt(pi / 2). */
    static final double MEDIAN_ERROR_PER_SD = 1.2533;

    /** The median: one slow answer in a window (a slow tail is common) is not congestion. */
    static double median(long[] values) {
        return medianOfSorted(RttHistory.sortedCopy(values));
    }

    /** The median of values already sorted, for a caller that needs the sorted copy too. */
    static double medianOfSorted(long[] sorted) {
        int n = sorted.length;
        // Averaged as doubles: absurd RTTs near Long.MAX_VALUE must not overflow.
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] / 2.0 + sorted[n / 2] / 2.0);
    }

    /**
     * The spread of a sorted sample that its slow tail does not widen: the noise both Vegas's and
     * Aimd's tests of a rise read.
     */
    static double interquartileRange(long[] sorted) {
        return RttHistory.quantileOfSorted(sorted, 0.75) - (double) RttHistory.quantileOfSorted(sorted, 0.25);
    }

    static double millis(double nanos) {
        return nanos / 1_000_000.0;
    }
}
