package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

import java.util.Map;
import java.util.Objects;

/**
 * Additive increase, multiplicative decrease, with a latency trigger: the limit grows by
 * {@link #increaseStep()} after every {@link #stabilityWindow()} consecutive successes whose
 * mean RTT ({@code recentRtt}) stays below {@link #congestionThreshold()} times the baseline,
 * and is multiplied by {@link #decreaseFactor()} when that window is slower, or at once on a
 * drop or rate limit.
 *
 * <p>The baseline is the {@link #baseRttQuantile()} quantile of the last
 * {@link #baseRttWindow()} success RTTs before the window being judged: a windowed low value
 * rather than an all-time minimum, so that the limit can grow again once the downstream
 * settles at a new normal latency. Only success RTTs, each counted as at least
 * 1 microsecond, enter it: near-instant failures would make every later window look congested.
 *
 * <p>A congestion sample that started before the last multiplicative decrease is ignored (see
 * {@link State}), so that the attempts that were in flight together during one overload cost
 * one decrease, not one each.
 *
 * <p>Defaults: initialLimit 5, minLimit 1, maxLimit {@link Integer#MAX_VALUE} (unbounded),
 * increaseStep 2, decreaseFactor 0.55, congestionThreshold 1.4, stabilityWindow 4,
 * baseRttWindow 100, baseRttQuantile 0.3.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function.
 */
public final class Aimd extends BoundedLimit {

    private static final Aimd DEFAULTS = builder().build();

    private final int increaseStep;
    private final double decreaseFactor;
    private final double congestionThreshold;
    private final int stabilityWindow;
    private final int baseRttWindow;
    private final double baseRttQuantile;
    private final State initialState;

    private Aimd(Builder b) {
        super(b);
        this.increaseStep = OptionChecks.atLeast("increaseStep", b.increaseStep, 1);
        this.decreaseFactor = OptionChecks.openUnit("decreaseFactor", b.decreaseFactor);
        // At or below 1 even a perfectly flat downstream would count as congested.
        this.congestionThreshold = OptionChecks.greaterThan("congestionThreshold", b.congestionThreshold, 1);
        this.stabilityWindow = OptionChecks.atLeast("stabilityWindow", b.stabilityWindow, 1);
        this.baseRttWindow = OptionChecks.between("baseRttWindow", b.baseRttWindow, 1, RttHistory.MAX_CAPACITY);
        this.baseRttQuantile = OptionChecks.closedUnit("baseRttQuantile", b.baseRttQuantile);
        this.initialState = new State(bounds.initial(), RttHistory.empty(baseRttWindow), RttBatch.EMPTY,
                0, 0, 0, 0, false);
    }

    /** @return a new builder with the defaults listed on {@link Aimd}; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the shared instance with all defaults */
    public static Aimd defaults() {
        return DEFAULTS;
    }

    /** @return how much the limit grows after a stable window; default 2 */
    public int increaseStep() {
        return increaseStep;
    }

    /** @return the factor applied to the limit on congestion; default 0.55 */
    public double decreaseFactor() {
        return decreaseFactor;
    }

    /** @return the recentRtt / baselineRtt ratio at and above which a window is congested; default 1.4 */
    public double congestionThreshold() {
        return congestionThreshold;
    }

    /** @return the number of consecutive successes judged together; default 4 */
    public int stabilityWindow() {
        return stabilityWindow;
    }

    /** @return the number of recent success RTTs the baseline is taken from; default 100 */
    public int baseRttWindow() {
        return baseRttWindow;
    }

    /** @return the quantile of the recent RTTs taken as the baseline; default 0.3 */
    public double baseRttQuantile() {
        return baseRttQuantile;
    }

    /** @return {@code "aimd"} */
    @Override
    public String name() {
        return "aimd";
    }

    @Override
    public State initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by an {@code Aimd}
     */
    @Override
    public State update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not an Aimd state: " + state);
        }
        if (sample.isCongestion()) {
            if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos)) {
                return s;
            }
            return new State(bounds.floor(s.limit * decreaseFactor), s.history, RttBatch.EMPTY,
                    s.baselineRttNanos, s.recentRttNanos, s.ratio, Samples.decreaseTime(sample), true);
        }
        if (!sample.isSuccess()) {
            return s;
        }
        RttBatch recent = s.recent.plus(Samples.successRtt(sample));
        if (recent.count() < stabilityWindow) {
            return new State(bounds.clamp((long) s.limit), s.history, recent, s.baselineRttNanos,
                    s.recentRttNanos, s.ratio, s.lastDecreaseNanos, s.decreased);
        }
        long[] window = recent.toArray();
        double recentRtt = mean(window);
        // Judge the window against the past, not against itself; the first window has no past.
        double baselineRtt = s.history.isEmpty()
                ? RttHistory.quantileOfSorted(RttHistory.sortedCopy(window), baseRttQuantile)
                : s.history.quantile(baseRttQuantile);
        double ratio = recentRtt / baselineRtt;
        RttHistory history = s.history.plus(window);
        if (ratio < congestionThreshold) {
            return new State(bounds.clamp((long) s.limit + increaseStep), history, RttBatch.EMPTY,
                    baselineRtt, recentRtt, ratio, s.lastDecreaseNanos, s.decreased);
        }
        return new State(bounds.floor(s.limit * decreaseFactor), history, RttBatch.EMPTY,
                baselineRtt, recentRtt, ratio, Samples.decreaseTime(sample), true);
    }

    private static double mean(long[] values) {
        // Summed as doubles: absurd RTTs near Long.MAX_VALUE must not overflow.
        double sum = 0;
        for (long v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    @Override
    public String toString() {
        return "Aimd[initialLimit=" + initialLimit() + ", minLimit=" + minLimit() + ", maxLimit=" + maxLimit()
                + ", increaseStep=" + increaseStep + ", decreaseFactor=" + decreaseFactor
                + ", congestionThreshold=" + congestionThreshold + ", stabilityWindow=" + stabilityWindow
                + ", baseRttWindow=" + baseRttWindow + ", baseRttQuantile=" + baseRttQuantile + "]";
    }

    /**
     * The state of an {@link Aimd} limit between two samples. Immutable; folding a sample
     * allocates the next state and one small node, and the RTT history is rebuilt once per
     * stability window. The RTT fields are in nanoseconds and, like the ratio, are 0 until the
     * first window completes.
     *
     * @param limit             the current limit, within the limit's [min, max]
     * @param history           the recent success RTTs the baseline is read from (internal)
     * @param recent            the success RTTs of the window in progress (internal)
     * @param baselineRttNanos  the baseline the last window was judged against
     * @param recentRttNanos    the mean RTT of the last window
     * @param ratio             recentRtt / baselineRtt of the last window
     * @param lastDecreaseNanos when the last multiplicative decrease happened: the end
     *                          ({@code startNanos + rttNanos}) of the sample that caused it;
     *                          congestion samples that started earlier are ignored
     * @param decreased         whether there was any such decrease; until then
     *                          {@code lastDecreaseNanos} means nothing
     */
    public record State(int limit, RttHistory history, RttBatch recent, double baselineRttNanos,
                        double recentRttNanos, double ratio, long lastDecreaseNanos, boolean decreased)
            implements LimitState {

        /** @return baselineRtt and recentRtt (milliseconds), ratio and limit */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("baselineRtt", Samples.millis(baselineRttNanos), "recentRtt", Samples.millis(recentRttNanos),
                    "ratio", ratio, "limit", (double) limit);
        }
    }

    /**
     * A mutable builder (the bounds are {@link LimitBuilder}'s); every option is checked by
     * {@link #build()}, which throws {@link IllegalArgumentException} naming the option and the
     * value. Not thread-safe.
     */
    public static final class Builder extends LimitBuilder<Builder> {
        private int increaseStep = 2;
        private double decreaseFactor = 0.55;
        private double congestionThreshold = 1.4;
        private int stabilityWindow = 4;
        private int baseRttWindow = 100;
        private double baseRttQuantile = 0.3;

        private Builder() {
        }

        /**
         * @param increaseStep how much the limit grows after a stable window, at least 1; default 2
         * @return this builder
         */
        public Builder increaseStep(int increaseStep) {
            this.increaseStep = increaseStep;
            return this;
        }

        /**
         * @param decreaseFactor the factor applied on congestion, strictly between 0 and 1; default 0.55
         * @return this builder
         */
        public Builder decreaseFactor(double decreaseFactor) {
            this.decreaseFactor = decreaseFactor;
            return this;
        }

        /**
         * @param congestionThreshold the recentRtt / baselineRtt ratio at and above which a window
         *                            is congested, greater than 1; default 1.4
         * @return this builder
         */
        public Builder congestionThreshold(double congestionThreshold) {
            this.congestionThreshold = congestionThreshold;
            return this;
        }

        /**
         * @param stabilityWindow consecutive successes judged together, at least 1; default 4
         * @return this builder
         */
        public Builder stabilityWindow(int stabilityWindow) {
            this.stabilityWindow = stabilityWindow;
            return this;
        }

        /**
         * @param baseRttWindow how many recent success RTTs the baseline is taken from, 1 to
         *                      10,000 (each window copies and sorts them); default 100
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
         * @return a new immutable {@link Aimd}
         * @throws IllegalArgumentException naming the first invalid option and its value
         */
        public Aimd build() {
            return new Aimd(this);
        }
    }
}
