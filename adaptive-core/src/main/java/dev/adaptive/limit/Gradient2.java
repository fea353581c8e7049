package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

import java.util.Map;
import java.util.Objects;

/**
 * A gradient limit in the shape of Netflix's Gradient2: it compares a short-term RTT with a
 * long-term one and shrinks the limit while the short term is the slower, so it tracks changes
 * in latency rather than a fixed baseline.
 *
 * <p>Every success updates {@code longRtt}, an exponential average with weight
 * {@code 2 / (longWindow + 1)} (a plain running mean until enough samples make that weight
 * the smaller one, so the first sample does not dominate). Every {@link #probeWindow()}
 * successes, {@code shortRtt} is their mean and
 * <pre>
 * gradient = clamp(rttTolerance * longRtt / shortRtt, 0.5, 1.0)
 * newLimit = limit * gradient + queueSize
 * limit    = limit * (1 - smoothing) + newLimit * smoothing
 * </pre>
 * When {@code longRtt} is more than twice {@code shortRtt} it is first lowered by 5% per
 * window: after a slow episode the long average would otherwise stay high for hundreds of
 * samples and hide the next one.
 *
 * <p>Unlike Netflix's Gradient2, drops and rate limits are a signal: each multiplies the limit
 * by {@link #decreaseFactor()} at once and starts a new probe window, unless the attempt
 * started before the last such decrease (see {@link State}). Success RTTs count as at least
 * 1 microsecond; failure RTTs never enter the averages.
 *
 * <p>The limit is held as a fractional estimate; {@link State#limit()} is its floor, always in
 * [min, max].
 *
 * <p>Defaults: initialLimit 5, minLimit 1, maxLimit {@link Integer#MAX_VALUE} (unbounded),
 * smoothing 0.15, longWindow 600, rttTolerance 1.15, decreaseFactor 0.5, probeWindow 3,
 * queueSize 2.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function.
 */
public final class Gradient2 extends BoundedLimit {

    private static final double MIN_GRADIENT = 0.5;
    private static final double LONG_RTT_DECAY = 0.95;

    private static final Gradient2 DEFAULTS = builder().build();

    private final double smoothing;
    private final int longWindow;
    private final double rttTolerance;
    private final double decreaseFactor;
    private final int probeWindow;
    private final int queueSize;
    private final double longWeight;
    private final State initialState;

    private Gradient2(Builder b) {
        super(b);
        this.smoothing = OptionChecks.halfOpenUnit("smoothing", b.smoothing);
        this.longWindow = OptionChecks.atLeast("longWindow", b.longWindow, 1);
        // Below 1 a flat downstream would look slower than itself and the limit would only shrink.
        this.rttTolerance = OptionChecks.atLeast("rttTolerance", b.rttTolerance, 1);
        this.decreaseFactor = OptionChecks.openUnit("decreaseFactor", b.decreaseFactor);
        this.probeWindow = OptionChecks.atLeast("probeWindow", b.probeWindow, 1);
        this.queueSize = OptionChecks.atLeast("queueSize", b.queueSize, 0);
        this.longWeight = 2.0 / (longWindow + 1.0);
        this.initialState = new State(bounds.initial(), 0, 0, 0, 0, 0, 1.0, 0, false);
    }

    /** @return a new builder with the defaults listed on {@link Gradient2}; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the shared instance with all defaults */
    public static Gradient2 defaults() {
        return DEFAULTS;
    }

    /** @return the weight of each new limit in the smoothed one; default 0.15 */
    public double smoothing() {
        return smoothing;
    }

    /** @return the span, in successes, of the long-term RTT average; default 600 */
    public int longWindow() {
        return longWindow;
    }

    /** @return how much slower than longRtt shortRtt may be before the limit shrinks; default 1.15 */
    public double rttTolerance() {
        return rttTolerance;
    }

    /** @return the factor applied to the limit on a drop or rate limit; default 0.5 */
    public double decreaseFactor() {
        return decreaseFactor;
    }

    /** @return the number of successes averaged into shortRtt (one decision each); default 3 */
    public int probeWindow() {
        return probeWindow;
    }

    /** @return the headroom added to the limit at each decision, in calls; default 2 */
    public int queueSize() {
        return queueSize;
    }

    /** @return {@code "gradient2"} */
    @Override
    public String name() {
        return "gradient2";
    }

    @Override
    public State initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by a {@code Gradient2}
     */
    @Override
    public State update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not a Gradient2 state: " + state);
        }
        if (sample.isCongestion()) {
            if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos)) {
                return s;
            }
            return new State(bounds.clamp(s.estimate * decreaseFactor), s.longRttNanos, s.longRttCount, 0, 0,
                    s.shortRttNanos, s.gradient, Samples.decreaseTime(sample), true);
        }
        if (!sample.isSuccess()) {
            return s;
        }
        double rtt = Samples.successRtt(sample);
        // Past longWindow samples the count no longer changes the weight; capping it avoids overflow.
        int longCount = Math.min(s.longRttCount + 1, longWindow + 1);
        double weight = Math.max(1.0 / longCount, longWeight);
        double longRtt = s.longRttNanos + weight * (rtt - s.longRttNanos);
        double shortSum = s.shortRttSumNanos + rtt;
        int shortCount = s.shortRttCount + 1;
        if (shortCount < probeWindow) {
            return new State(bounds.clamp(s.estimate), longRtt, longCount, shortSum, shortCount,
                    s.shortRttNanos, s.gradient, s.lastDecreaseNanos, s.decreased);
        }
        double shortRtt = shortSum / shortCount;
        if (longRtt > 2 * shortRtt) {
            longRtt *= LONG_RTT_DECAY;
        }
        double gradient = Math.max(MIN_GRADIENT, Math.min(1.0, rttTolerance * longRtt / shortRtt));
        double newLimit = s.estimate * gradient + queueSize;
        double estimate = bounds.clamp(s.estimate * (1 - smoothing) + newLimit * smoothing);
        return new State(estimate, longRtt, longCount, 0, 0, shortRtt, gradient, s.lastDecreaseNanos, s.decreased);
    }

    @Override
    public String toString() {
        return "Gradient2[initialLimit=" + initialLimit() + ", minLimit=" + minLimit() + ", maxLimit=" + maxLimit()
                + ", smoothing=" + smoothing + ", longWindow=" + longWindow + ", rttTolerance=" + rttTolerance
                + ", decreaseFactor=" + decreaseFactor + ", probeWindow=" + probeWindow
                + ", queueSize=" + queueSize + "]";
    }

    /**
     * The state of a {@link Gradient2} limit between two samples. Immutable, and free of
     * arrays: folding a sample allocates only the next state. RTTs are in nanoseconds;
     * {@code shortRttNanos} is 0 and {@code gradient} 1 until the first probe window completes.
     *
     * @param estimate          the fractional limit, within the limit's [min, max]
     * @param longRttNanos      the long-term RTT average
     * @param longRttCount      successes averaged so far, capped at longWindow + 1
     * @param shortRttSumNanos  the sum of the RTTs of the probe window in progress
     * @param shortRttCount     the number of successes in the probe window in progress
     * @param shortRttNanos     the mean RTT of the last completed probe window
     * @param gradient          the gradient of the last completed probe window
     * @param lastDecreaseNanos when the last multiplicative decrease happened: the end
     *                          ({@code startNanos + rttNanos}) of the congestion sample that
     *                          caused it; congestion samples that started earlier are ignored
     * @param decreased         whether there was any such decrease; until then
     *                          {@code lastDecreaseNanos} means nothing
     */
    public record State(double estimate, double longRttNanos, int longRttCount, double shortRttSumNanos,
                        int shortRttCount, double shortRttNanos, double gradient, long lastDecreaseNanos,
                        boolean decreased) implements LimitState {

        /** @return the floor of {@link #estimate()} */
        @Override
        public int limit() {
            // The cast saturates at Integer.MAX_VALUE, and the estimate is kept at or above min >= 1.
            return (int) Math.max(1, Math.floor(estimate));
        }

        /** @return shortRtt and longRtt (milliseconds), gradient and limit */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("shortRtt", Samples.millis(shortRttNanos), "longRtt", Samples.millis(longRttNanos),
                    "gradient", gradient, "limit", (double) limit());
        }
    }

    /**
     * A mutable builder (the bounds are {@link LimitBuilder}'s); every option is checked by
     * {@link #build()}, which throws {@link IllegalArgumentException} naming the option and the
     * value. Not thread-safe.
     */
    public static final class Builder extends LimitBuilder<Builder> {
        private double smoothing = 0.15;
        private int longWindow = 600;
        private double rttTolerance = 1.15;
        private double decreaseFactor = 0.5;
        private int probeWindow = 3;
        private int queueSize = 2;

        private Builder() {
        }

        /**
         * @param smoothing the weight of each new limit in the smoothed one, greater than 0 and at
         *                  most 1; default 0.15
         * @return this builder
         */
        public Builder smoothing(double smoothing) {
            this.smoothing = smoothing;
            return this;
        }

        /**
         * @param longWindow the span, in successes, of the long-term RTT average, at least 1;
         *                   default 600
         * @return this builder
         */
        public Builder longWindow(int longWindow) {
            this.longWindow = longWindow;
            return this;
        }

        /**
         * @param rttTolerance how much slower than longRtt shortRtt may be before the limit
         *                     shrinks, at least 1; default 1.15
         * @return this builder
         */
        public Builder rttTolerance(double rttTolerance) {
            this.rttTolerance = rttTolerance;
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
         * @param probeWindow successes averaged into shortRtt, at least 1; default 3
         * @return this builder
         */
        public Builder probeWindow(int probeWindow) {
            this.probeWindow = probeWindow;
            return this;
        }

        /**
         * @param queueSize headroom added at each decision, in calls, at least 0; default 2
         * @return this builder
         */
        public Builder queueSize(int queueSize) {
            this.queueSize = queueSize;
            return this;
        }

        /**
         * @return a new immutable {@link Gradient2}
         * @throws IllegalArgumentException naming the first invalid option and its value
         */
        public Gradient2 build() {
            return new Gradient2(this);
        }
    }
}
