package dev.adaptive.guard;

import java.util.Arrays;

/**
 * A recalibration in progress: when it started and the clean RTTs collected so far. Immutable;
 * {@link #plus(long)} copies the few RTTs (probeSamples, 5 by default).
 */
final class Probe {

    private final long startNanos;
    private final boolean fromAnyStart;
    private final long[] rtts;

    private Probe(long startNanos, boolean fromAnyStart, long[] rtts) {
        this.startNanos = startNanos;
        this.fromAnyStart = fromAnyStart;
        this.rtts = rtts;
    }

    /** The probe a recalibrating guard starts with: nothing was in flight before it. */
    static Probe atStartup() {
        return new Probe(0, true, new long[0]);
    }

    static Probe startingAt(long nanos) {
        return new Probe(nanos, false, new long[0]);
    }

    /** Requests admitted before the drain began ran at the old concurrency: not a no-load sample. */
    boolean accepts(long sampleStartNanos) {
        return fromAnyStart || sampleStartNanos - startNanos >= 0;
    }

    int size() {
        return rtts.length;
    }

    Probe plus(long rtt) {
        long[] next = Arrays.copyOf(rtts, rtts.length + 1);
        next[rtts.length] = rtt;
        return new Probe(startNanos, fromAnyStart, next);
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
        return "Probe[start=" + (fromAnyStart ? "any" : startNanos) + ", rtts=" + Arrays.toString(rtts) + "]";
    }
}
