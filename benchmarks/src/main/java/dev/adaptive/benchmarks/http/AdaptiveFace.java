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
    /** Whether the face's retries are capped by the engine's retry budget (its default), or not at all. */
    protected final boolean retryBudget;

    /** @param trace also receives the engine's trace events, or {@code null} */
    protected AdaptiveFace(TraceListener trace) {
        this(trace, true);
    }

    /**
     * @param trace        also receives the engine's trace events, or {@code null}
     * @param quotaHeaders whether to read the quota the server announces
     */
    protected AdaptiveFace(TraceListener trace, boolean quotaHeaders) {
        this(trace, quotaHeaders, true);
    }

    /**
     * @param trace        also receives the engine's trace events, or {@code null}
     * @param quotaHeaders whether to read the quota the server announces
     * @param retryBudget  whether the retry budget (at its defaults) caps the retries
     */
    protected AdaptiveFace(TraceListener trace, boolean quotaHeaders, boolean retryBudget) {
        this.trace = trace;
        this.quotaHeaders = quotaHeaders;
        this.retryBudget = retryBudget;
    }

    /** @return what the face's name adds for its settings that are not the defaults */
    protected final String settings() {
        return (quotaHeaders ? "" : ", quota headers off") + (retryBudget ? "" : ", retry budget off");
    }

    @Override
    public final boolean adaptive() {
        return true;
    }
}
