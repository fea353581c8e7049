package dev.adaptive.limit;

import java.util.Arrays;

/**
 * The success RTTs of the probe window in progress, newest first, each with the number of
 * calls in flight its attempt was admitted at (0 where the caller does not keep it). An
 * immutable cons list, so that folding one sample allocates one small node instead of copying
 * an array; the batch is turned into an array once, when the window completes.
 */
final class RttBatch {

    static final RttBatch EMPTY = new RttBatch(0, 0, null, 0);

    private final long rttNanos;
    private final int inflight;
    private final RttBatch older;
    private final int count;

    private RttBatch(long rttNanos, int inflight, RttBatch older, int count) {
        this.rttNanos = rttNanos;
        this.inflight = inflight;
        this.older = older;
        this.count = count;
    }

    RttBatch plus(long rttNanos) {
        return plus(rttNanos, 0);
    }

    /** The node fits in the same 32 bytes as one without the count (object alignment). */
    RttBatch plus(long rttNanos, int inflight) {
        return new RttBatch(rttNanos, inflight, this, count + 1);
    }

    int count() {
        return count;
    }

    /** @return the RTTs, oldest first */
    long[] toArray() {
        long[] out = new long[count];
        RttBatch node = this;
        for (int i = count - 1; i >= 0; i--) {
            out[i] = node.rttNanos;
            node = node.older;
        }
        return out;
    }

    /** @return the in-flight counts the RTTs' attempts were admitted at, oldest first */
    int[] inflights() {
        int[] out = new int[count];
        RttBatch node = this;
        for (int i = count - 1; i >= 0; i--) {
            out[i] = node.inflight;
            node = node.older;
        }
        return out;
    }

    // Iterative rather than recursive: a large probe window must not overflow the stack.

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RttBatch other)) {
            return false;
        }
        RttBatch a = this;
        RttBatch b = other;
        if (a.count != b.count) {
            return false;
        }
        while (a != b && a.count > 0) {
            if (a.rttNanos != b.rttNanos || a.inflight != b.inflight) {
                return false;
            }
            a = a.older;
            b = b.older;
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (RttBatch node = this; node.count > 0; node = node.older) {
            h = 31 * (31 * h + Long.hashCode(node.rttNanos)) + node.inflight;
        }
        return h;
    }

    @Override
    public String toString() {
        return "RttBatch" + Arrays.toString(toArray());
    }
}
