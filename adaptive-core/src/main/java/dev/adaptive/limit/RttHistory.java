package dev.adaptive.limit;

import java.util.Arrays;

/**
 * The last {@code capacity} success RTTs, oldest first, from which the adaptive limits read a
 * windowed low quantile as their no-load baseline. Windowed rather than an all-time minimum so
 * that the baseline follows a downstream whose normal latency changed, and a single lucky fast
 * answer cannot hold the limit down forever.
 *
 * <p>Immutable. A new history is built once per probe window, not per sample, which keeps the
 * per-sample cost of the hot path independent of the capacity.
 */
final class RttHistory {

    /** The largest capacity the builders accept: each probe window copies and sorts the history. */
    static final int MAX_CAPACITY = 10_000;

    private final int capacity;
    private final long[] rtts;
    private volatile long[] sorted;

    private RttHistory(int capacity, long[] rtts) {
        this.capacity = capacity;
        this.rtts = rtts;
    }

    static RttHistory empty(int capacity) {
        return new RttHistory(capacity, new long[0]);
    }

    boolean isEmpty() {
        return rtts.length == 0;
    }

    int size() {
        return rtts.length;
    }

    int capacity() {
        return capacity;
    }

    /** @param newest RTTs oldest first; only the last {@code capacity} of old + new are kept */
    RttHistory plus(long[] newest) {
        int size = (int) Math.min(capacity, (long) rtts.length + newest.length);
        long[] next = new long[size];
        int fromNew = Math.min(newest.length, size);
        int fromOld = size - fromNew;
        System.arraycopy(rtts, rtts.length - fromOld, next, 0, fromOld);
        System.arraycopy(newest, newest.length - fromNew, next, fromOld, fromNew);
        return new RttHistory(capacity, next);
    }

    /**
     * @return the RTTs in ascending order, sorted once per history and shared: a limit that
     *         sits at its operating point keeps one history for a long time and reads it at every
     *         probe. Callers must not modify the array.
     */
    long[] sorted() {
        long[] s = sorted;
        if (s == null) {
            // A race computes the same array twice; the field only ever holds a complete one.
            s = sortedCopy(rtts);
            sorted = s;
        }
        return s;
    }

    /** @return the RTTs, oldest first, as a new array */
    long[] toArray() {
        return rtts.clone();
    }

    /** @return the lower nearest-rank {@code q}-quantile; the history must not be empty */
    long quantile(double q) {
        return quantileOfSorted(sorted(), q);
    }

    static long[] sortedCopy(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted;
    }

    static long quantileOfSorted(long[] sorted, double q) {
        return sorted[(int) Math.floor(q * (sorted.length - 1))];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RttHistory other && capacity == other.capacity && Arrays.equals(rtts, other.rtts);
    }

    @Override
    public int hashCode() {
        return 31 * capacity + Arrays.hashCode(rtts);
    }

    @Override
    public String toString() {
        return "RttHistory[size=" + rtts.length + ", capacity=" + capacity + "]";
    }
}
