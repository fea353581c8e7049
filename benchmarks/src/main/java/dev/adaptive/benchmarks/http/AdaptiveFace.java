package dev.adaptive.benchmarks.http;

import dev.adaptive.trace.TraceListener;

/**
 * What Adaptive's faces share: they are adaptive, they may pass an extra trace listener (for
 * {@code HttpBench --trace}) to the engine they build per run, and they read the quota a server
 * announces unless told not to (the {@code quotaHeaders} option of every face).
 */
abstract class AdaptiveFace implements HttpFace {

    /** Also receives the engine's trace events, or {@code null}. */
    protected final TraceListener trace;
    /** Whether the face reads the quota the server announces in its headers. */
    protected final boolean quotaHeaders;

    /** @param trace also receives the engine's trace events, or {@code null} */
    protected AdaptiveFace(TraceListener trace) {
        this(trace, true);
    }

    /**
     * @param trace        also receives the engine's trace events, or {@code null}
     * @param quotaHeaders whether to read the quota the server announces
     */
    protected AdaptiveFace(TraceListener trace, boolean quotaHeaders) {
        this.trace = trace;
        this.quotaHeaders = quotaHeaders;
    }

    @Override
    public final boolean adaptive() {
        return true;
    }
}
