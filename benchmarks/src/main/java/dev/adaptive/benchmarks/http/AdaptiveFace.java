package dev.adaptive.benchmarks.http;

import dev.adaptive.trace.TraceListener;

/**
 * What Adaptive's faces share: they are adaptive, and they may pass an extra trace listener
 * (for {@code HttpBench --trace}) to the engine they build per run.
 */
abstract class AdaptiveFace implements HttpFace {

    /** Also receives the engine's trace events, or {@code null}. */
    protected final TraceListener trace;

    /** @param trace also receives the engine's trace events, or {@code null} */
    protected AdaptiveFace(TraceListener trace) {
        this.trace = trace;
    }

    @Override
    public final boolean adaptive() {
        return true;
    }
}
