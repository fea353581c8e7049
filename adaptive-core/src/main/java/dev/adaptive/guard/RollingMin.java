package dev.adaptive.guard;

/**
 * The minimum of the last {@code capacity} values, exact, as an immutable monotonic queue:
 * the candidates still able to become the minimum, increasing from the oldest. A new value
 * evicts every candidate that is not smaller, and the oldest leaves when it falls out of the
 * window, so the queue holds a handful of values on real traffic (about ln(capacity) for
 * random RTTs) and each sample copies only those.
 */
final class RollingMin {

    private final int capacity;
    private final long count;
    private final long[] values;
    private final long[] positions;

    private RollingMin(int capacity, long count, long[] values, long[] positions) {
        this.capacity = capacity;
        this.count = count;
        this.values = values;
        this.positions = positions;
    }

    static RollingMin empty(int capacity) {
        return new RollingMin(capacity, 0, new long[0], new long[0]);
    }

    boolean isEmpty() {
        return values.length == 0;
    }

    /** @return the minimum of the last {@code capacity} values; the window must not be empty */
    long min() {
        return values[0];
    }

    RollingMin plus(long value) {
        long position = count + 1;
        int from = 0;
        while (from < values.length && positions[from] <= position - capacity) {
            from++;
        }
        int to = values.length;
        while (to > from && values[to - 1] >= value) {
            to--;
        }
        int kept = to - from;
        long[] v = new long[kept + 1];
        long[] p = new long[kept + 1];
        System.arraycopy(values, from, v, 0, kept);
        System.arraycopy(positions, from, p, 0, kept);
        v[kept] = value;
        p[kept] = position;
        return new RollingMin(capacity, position, v, p);
    }

    @Override
    public String toString() {
        return "RollingMin[capacity=" + capacity + ", candidates=" + values.length
                + (values.length == 0 ? "" : ", min=" + values[0]) + "]";
    }
}
