package dev.adaptive.limit;

import java.util.Map;
import java.util.Objects;

/**
 * The default limit: a delay-based algorithm after TCP Vegas. It estimates how many calls are
 * queued at the downstream from how much slower recent calls are than the no-load baseline,
 * and keeps that queue between {@link #alpha()} and {@link #beta()}.
 *
 * <p>Every {@link #probeWindow()} successes it takes {@code probeRtt}, the median of the
 * window, and {@code baseRtt}, the {@link #baseRttQuantile()} quantile of the last
 * {@link #baseRttWindow()} success RTTs before the window, and computes
 * {@code queue = limit * (1 - baseRtt / probeRtt)}: below alpha the limit grows by one, above
 * beta it shrinks by one, otherwise it holds. A congestion sample (drop or rate limit)
 * multiplies the limit by {@link #decreaseFactor()} at once and starts a new probe window,
 * unless the attempt started before the last such decrease (see {@link State}).
 *
 * <p>Rules that keep the estimate honest:
 * <ul>
 *   <li>Only success RTTs enter the baseline: a failure often returns almost at once and
 *       would make the downstream look far faster than it is.</li>
 *   <li>A success RTT counts as at least 1 microsecond.</li>
 *   <li>The baseline is a low quantile over a window, not an all-time minimum, so after the
 *       downstream's normal latency changes the limit can grow again.</li>
 * </ul>
 *
 * <p>Defaults: initialLimit 5, minLimit 1, maxLimit {@link Integer#MAX_VALUE} (unbounded),
 * alpha 1, beta 2, decreaseFactor 0.5, probeWindow 5, baseRttWindow 100, baseRttQuantile 0.3.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function.
 */
public final class Vegas implements Limit {

    private static final Vegas DEFAULTS = builder().build();

    private final Bounds bounds;
    private final double alpha;
    private final double beta;
    private final double decreaseFactor;
    private final int probeWindow;
    private final int baseRttWindow;
    private final double baseRttQuantile;
    private final State initialState;

    private Vegas(Builder b) {
        this.bounds = Bounds.of(b.initialLimit, b.initialLimitSet, b.minLimit, b.maxLimit);
        this.alpha = Bounds.atLeast("alpha", b.alpha, 0);
        if (!(b.beta >= b.alpha) || Double.isInfinite(b.beta)) {
            throw new IllegalArgumentException("beta must be finite and >= alpha (" + b.alpha + "): " + b.beta);
        }
        this.beta = b.beta;
        this.decreaseFactor = Bounds.openUnit("decreaseFactor", b.decreaseFactor);
        this.probeWindow = Bounds.atLeast("probeWindow", b.probeWindow, 1);
        this.baseRttWindow = Bounds.between("baseRttWindow", b.baseRttWindow, 1, RttHistory.MAX_CAPACITY);
        this.baseRttQuantile = Bounds.closedUnit("baseRttQuantile", b.baseRttQuantile);
        this.initialState = new State(bounds.initial(), RttHistory.empty(baseRttWindow), RttBatch.EMPTY,
                0, 0, 0, 0, false);
    }

    /** @return a new builder with the defaults listed on {@link Vegas}; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the shared instance with all defaults */
    public static Vegas defaults() {
        return DEFAULTS;
    }

    /** @return the limit before any sample; default 5 */
    @Override
    public int initialLimit() {
        return bounds.initial();
    }

    /** @return the smallest limit; default 1 */
    @Override
    public int minLimit() {
        return bounds.min();
    }

    /** @return the largest limit; default {@link Integer#MAX_VALUE} */
    @Override
    public int maxLimit() {
        return bounds.max();
    }

    /** @return the estimated queue, in calls, below which the limit grows; default 1 */
    public double alpha() {
        return alpha;
    }

    /** @return the estimated queue, in calls, above which the limit shrinks; default 2 */
    public double beta() {
        return beta;
    }

    /** @return the factor applied to the limit on a drop or rate limit; default 0.5 */
    public double decreaseFactor() {
        return decreaseFactor;
    }

    /** @return the number of successes per probe (one decision each); default 5 */
    public int probeWindow() {
        return probeWindow;
    }

    /** @return the number of recent success RTTs the baseline is taken from; default 100 */
    public int baseRttWindow() {
        return baseRttWindow;
    }

    /** @return the quantile of the recent RTTs taken as the baseline; default 0.3 */
    public double baseRttQuantile() {
        return baseRttQuantile;
    }

    /** @return {@code "vegas"} */
    @Override
    public String name() {
        return "vegas";
    }

    @Override
    public State initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by a {@code Vegas}
     */
    @Override
    public State update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not a Vegas state: " + state);
        }
        if (sample.isCongestion()) {
            if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos)) {
                return s;
            }
            int decreased = bounds.floor(s.limit * decreaseFactor);
            return new State(decreased, s.history, RttBatch.EMPTY, s.queue, s.baseRttNanos, s.probeRttNanos,
                    Samples.decreaseTime(sample), true);
        }
        if (!sample.isSuccess()) {
            return s;
        }
        RttBatch probe = s.probe.plus(Samples.successRtt(sample));
        if (probe.count() < probeWindow) {
            return new State(bounds.clamp((long) s.limit), s.history, probe, s.queue, s.baseRttNanos,
                    s.probeRttNanos, s.lastDecreaseNanos, s.decreased);
        }
        long[] window = probe.toArray();
        long[] sorted = RttHistory.sortedCopy(window);
        double probeRtt = median(sorted);
        // The baseline comes from before this window, so a slow window is compared with the past
        // rather than with itself; only the very first window has nothing else to go on.
        double baseRtt = s.history.isEmpty()
                ? RttHistory.quantileOfSorted(sorted, baseRttQuantile)
                : s.history.quantile(baseRttQuantile);
        // A probe faster than the baseline means no queue, not a negative one.
        double queue = Math.max(0, s.limit * (1 - baseRtt / probeRtt));
        long next = s.limit;
        if (queue < alpha) {
            next++;
        } else if (queue > beta) {
            next--;
        }
        return new State(bounds.clamp(next), s.history.plus(window), RttBatch.EMPTY, queue, baseRtt, probeRtt,
                s.lastDecreaseNanos, s.decreased);
    }

    private static double median(long[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] / 2.0 + sorted[n / 2] / 2.0);
    }

    @Override
    public String toString() {
        return "Vegas[initialLimit=" + initialLimit() + ", minLimit=" + minLimit() + ", maxLimit=" + maxLimit()
                + ", alpha=" + alpha + ", beta=" + beta + ", decreaseFactor=" + decreaseFactor
                + ", probeWindow=" + probeWindow + ", baseRttWindow=" + baseRttWindow
                + ", baseRttQuantile=" + baseRttQuantile + "]";
    }

    /**
     * The state of a {@link Vegas} limit between two samples. Immutable; folding a sample
     * allocates the next state and one small node, and the RTT history is rebuilt once per
     * probe window. The RTT fields are in nanoseconds and are 0 until the first probe window
     * completes.
     *
     * @param limit             the current limit, within the limit's [min, max]
     * @param history           the recent success RTTs the baseline is read from (internal)
     * @param probe             the success RTTs of the probe window in progress (internal)
     * @param queue             the queue estimated by the last probe, in calls
     * @param baseRttNanos      the baseline used by the last probe
     * @param probeRttNanos     the median RTT of the last probe window
     * @param lastDecreaseNanos when the last multiplicative decrease happened: the end
     *                          ({@code startNanos + rttNanos}) of the congestion sample that
     *                          caused it; congestion samples that started earlier are ignored
     * @param decreased         whether there was any such decrease; until then
     *                          {@code lastDecreaseNanos} means nothing
     */
    public record State(int limit, RttHistory history, RttBatch probe, double queue, double baseRttNanos,
                        double probeRttNanos, long lastDecreaseNanos, boolean decreased) implements LimitState {

        /** @return queue, baseRtt and probeRtt (milliseconds) and limit */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("queue", queue, "baseRtt", Samples.millis(baseRttNanos),
                    "probeRtt", Samples.millis(probeRttNanos), "limit", (double) limit);
        }
    }

    /**
     * A mutable builder; every option is checked by {@link #build()}, which throws
     * {@link IllegalArgumentException} naming the option and the value. Not thread-safe.
     */
    public static final class Builder {
        private int initialLimit = Bounds.DEFAULT_INITIAL;
        private boolean initialLimitSet;
        private int minLimit = Bounds.DEFAULT_MIN;
        private int maxLimit = Bounds.DEFAULT_MAX;
        private double alpha = 1;
        private double beta = 2;
        private double decreaseFactor = 0.5;
        private int probeWindow = 5;
        private int baseRttWindow = 100;
        private double baseRttQuantile = 0.3;

        private Builder() {
        }

        /**
         * @param initialLimit the limit before any sample, within [minLimit, maxLimit]; default 5,
         *                     moved into [minLimit, maxLimit] when left unset
         * @return this builder
         */
        public Builder initialLimit(int initialLimit) {
            this.initialLimit = initialLimit;
            this.initialLimitSet = true;
            return this;
        }

        /**
         * @param minLimit the smallest limit, at least 1; default 1
         * @return this builder
         */
        public Builder minLimit(int minLimit) {
            this.minLimit = minLimit;
            return this;
        }

        /**
         * @param maxLimit the largest limit, at least minLimit; default {@link Integer#MAX_VALUE}
         * @return this builder
         */
        public Builder maxLimit(int maxLimit) {
            this.maxLimit = maxLimit;
            return this;
        }

        /**
         * @param alpha queue (calls) below which the limit grows, {@code >= 0}; default 1
         * @return this builder
         */
        public Builder alpha(double alpha) {
            this.alpha = alpha;
            return this;
        }

        /**
         * @param beta queue (calls) above which the limit shrinks, {@code >= alpha}; default 2
         * @return this builder
         */
        public Builder beta(double beta) {
            this.beta = beta;
            return this;
        }

        /**
         * @param decreaseFactor the factor applied on a drop or rate limit, strictly between 0 and 1;
         *                       default 0.5
         * @return this builder
         */
        public Builder decreaseFactor(double decreaseFactor) {
            this.decreaseFactor = decreaseFactor;
            return this;
        }

        /**
         * @param probeWindow successes per probe, at least 1; default 5
         * @return this builder
         */
        public Builder probeWindow(int probeWindow) {
            this.probeWindow = probeWindow;
            return this;
        }

        /**
         * @param baseRttWindow how many recent success RTTs the baseline is taken from, 1 to
         *                      10,000 (each probe copies and sorts them); default 100
         * @return this builder
         */
        public Builder baseRttWindow(int baseRttWindow) {
            this.baseRttWindow = baseRttWindow;
            return this;
        }

        /**
         * @param baseRttQuantile which quantile of those RTTs is the baseline, 0 (the minimum) to 1;
         *                        default 0.3
         * @return this builder
         */
        public Builder baseRttQuantile(double baseRttQuantile) {
            this.baseRttQuantile = baseRttQuantile;
            return this;
        }

        /**
         * @return a new immutable {@link Vegas}
         * @throws IllegalArgumentException naming the first invalid option and its value
         */
        public Vegas build() {
            return new Vegas(this);
        }
    }
}
