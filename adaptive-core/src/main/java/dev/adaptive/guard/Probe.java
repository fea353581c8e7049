package dev.adaptive.guard;

import dev.adaptive.limit.Sample;

import java.util.Arrays;

/**
 * A recalibration in progress: when it started, the clean RTTs collected so far, and when the
 * last request admitted before it was seen to end. Immutable; {@link #plus(long)} copies the few
 * RTTs (probeSamples, 5 by default).
 */
final class Probe {

    private final long startNanos;
    private final boolean fromAnyStart;
    private final long[] rtts;
    private final boolean olderEnded;
    private final long lastOlderEndNanos;

    private Probe(long startNanos, boolean fromAnyStart, long[] rtts, boolean olderEnded, long lastOlderEndNanos) {
        this.startNanos = startNanos;
        this.fromAnyStart = fromAnyStart;
        this.rtts = rtts;
        this.olderEnded = olderEnded;
        this.lastOlderEndNanos = lastOlderEndNanos;
    }

    /** The probe a recalibrating guard starts with: nothing was in flight before it. */
    static Probe atStartup() {
        return new Probe(0, true, new long[0], false, 0);
    }

    static Probe startingAt(long nanos) {
        return new Probe(nanos, false, new long[0], false, 0);
    }

    /** @return whether a request admitted at {@code sampleStartNanos} came before the probe began */
    boolean isOlder(long sampleStartNanos) {
        return !fromAnyStart && sampleStartNanos - startNanos < 0;
    }

    /**
     * @param endNanos when a request admitted before the probe ended
     * @return this probe, knowing that it ended
     */
    Probe olderEnded(long endNanos) {
        if (olderEnded && endNanos - lastOlderEndNanos <= 0) {
            return this;
        }
        return new Probe(startNanos, fromAnyStart, rtts, true, endNanos);
    }

    /**
     * Whether a success of a request admitted since the probe began measured the backend at the
     * probe's concurrency. It did if it was admitted with at most {@code probeLimit} in flight,
     * as every request the probe admits once the older ones have ended. Admitted with more, it
     * ran beside older requests still in flight: those that ended while it ran were the load the
     * probe drains (short requests of the old concurrency), and it is discarded; those that
     * outlive it are requests that last (streams, long polls), the background the probe cannot
     * wait out, and it counts.
     *
     * @param sample     a success of a request admitted since the probe began
     * @param probeLimit the probe's limit
     * @return whether it is one of the probe's samples
     */
    boolean clean(Sample sample, int probeLimit) {
        return sample.inflight() <= probeLimit || !olderEnded || lastOlderEndNanos - sample.startNanos() <= 0;
    }

    int size() {
        return rtts.length;
    }

    Probe plus(long rtt) {
        long[] next = Arrays.copyOf(rtts, rtts.length + 1);
        next[rtts.length] = rtt;
        return new Probe(startNanos, fromAnyStart, next, olderEnded, lastOlderEndNanos);
    }

    /** The lower median: one lucky fast answer must not set the baseline for a whole interval. */
    long median() {
        long[] sorted = rtts.clone();
        Arrays.sort(sorted);
        return sorted[(sorted.length - 1) / 2];
    }

    long startNanos() {
        return startNanos;
    }

    @Override
    public String toString() {
        return "Probe[start=" + (fromAnyStart ? "any" : startNanos) + ", rtts=" + Arrays.toString(rtts)
                + (olderEnded ? ", lastOlderEnd=" + lastOlderEndNanos : "") + "]";
    }
}
