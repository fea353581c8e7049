package dev.adaptive;

/**
 * Which signals move the limit. Each can be switched off: with latency off, successes feed
 * the algorithm a flat RTT (the lowest seen), so the limit only probes upward; with errors
 * off, drops are counted but do not decrease it; with rate limits off, a 429 still pauses
 * dispatch for its Retry-After but does not decrease the limit.
 *
 * <p>Immutable. Default: {@link #all()}.
 * <pre>{@code Adapt.latency().errors().rateLimit()}</pre>
 */
public final class Adapt {

    private static final Adapt ALL = new Adapt(true, true, true);

    private final boolean latency;
    private final boolean errors;
    private final boolean rateLimit;

    private Adapt(boolean latency, boolean errors, boolean rateLimit) {
        this.latency = latency;
        this.errors = errors;
        this.rateLimit = rateLimit;
    }

    /** @return adapt on everything: latency, errors and rate limits (the default) */
    public static Adapt all() {
        return ALL;
    }

    /** @return adapt on nothing: the limit stays where it starts */
    public static Adapt nothing() {
        return new Adapt(false, false, false);
    }

    /** @return adapt on latency only; chain {@link #errors()} and {@link #rateLimit()} to add */
    public static Adapt latency() {
        return new Adapt(true, false, false);
    }

    /**
     * @param latency   adapt on RTT
     * @param errors    adapt on drops
     * @param rateLimit adapt on rate limits
     * @return the given combination
     */
    public static Adapt of(boolean latency, boolean errors, boolean rateLimit) {
        return new Adapt(latency, errors, rateLimit);
    }

    /** @return a copy that also adapts on errors */
    public Adapt errors() {
        return new Adapt(latency, true, rateLimit);
    }

    /** @return a copy that also adapts on rate limits */
    public Adapt rateLimit() {
        return new Adapt(latency, errors, true);
    }

    /** @return whether RTT moves the limit */
    public boolean onLatency() {
        return latency;
    }

    /** @return whether drops decrease the limit */
    public boolean onErrors() {
        return errors;
    }

    /** @return whether rate limits decrease the limit */
    public boolean onRateLimit() {
        return rateLimit;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Adapt a && a.latency == latency && a.errors == errors && a.rateLimit == rateLimit;
    }

    @Override
    public int hashCode() {
        return (latency ? 1 : 0) | (errors ? 2 : 0) | (rateLimit ? 4 : 0);
    }

    @Override
    public String toString() {
        return "Adapt[latency=" + latency + ", errors=" + errors + ", rateLimit=" + rateLimit + "]";
    }
}
