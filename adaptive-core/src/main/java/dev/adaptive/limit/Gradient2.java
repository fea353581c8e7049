package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * A gradient limit in the shape of Netflix's Gradient2: it compares a short-term RTT with a
 * long-term one and shrinks the limit while the short term is the slower.
 *
 * <p>Every {@link #probeWindow()} successes make a window; {@code shortRtt} is their median (one
 * slow answer, common in a slow tail, is not congestion), and
 * <pre>
 * gradient = clamp(rttTolerance * longRtt / shortRtt, 0.5, 1.0)
 * newLimit = limit * gradient + queueSize
 * limit    = limit * (1 - smoothing) + newLimit * smoothing
 * </pre>
 * {@code longRtt} is an exponential average with weight {@code 2 / (longWindow + 1)} (a plain
 * running mean until enough samples make that weight the smaller one) of the downstream's normal
 * latency: it takes only windows within {@link #rttTolerance()} of it, or within one standard error
 * of a window's median of it where the answers are spread wider than that (the spread read from
 * the interquartile range of the recent answers), each answer counting as its window's median (a
 * slow-tail answer that the median ignores stays out of it too). Fed with every answer, it would
 * follow the client's own queueing up, the gradient would stay at 1 and the limit would drift up
 * into the downstream's hard cap (seen on every server with a knee); kept to the tolerance alone
 * under wide jitter (±40% and more), it took the fast windows and not the slow half of normal
 * ones, settled at three quarters of the normal latency, and read windows with no queue as slow.
 * So that it can follow a downstream that got slower for good, it also takes a window that is still slow at half
 * the concurrency it last took one within the tolerance at (that is not the client's own
 * queueing); and when it is more than
 * twice {@code shortRtt} it is lowered by 5% per window, so that after a slow episode it does not
 * hide the next one.
 *
 * <p><b>Slow start.</b> Until the median of the last four windows' answers is slower than the
 * tolerance (a single window of three is too noisy: with 30% jitter one in six reads 15% slow with
 * no load), or a decrease, the limit grows by a quarter slot per success instead ({@code x1.25}
 * per round trip, spread over the answers): from the initial limit to a knee at 64 within a few
 * dozen round trips, not hundreds. A slow start that ended on a rise resumes when a window is
 * still within the tolerance at twice the level it ended at: a downstream's own queueing does not
 * shrink as load grows, so that rise was noise.
 *
 * <p><b>Growth past slow start</b> depends on how clearly the window says the downstream has
 * room: a window as fast as {@code longRtt} grows the limit at slow start's pace, one at the
 * tolerance by {@code queueSize * smoothing}, one in between by the same share of each.
 *
 * <p>Unlike Netflix's Gradient2, rate limits and drops are signals: a rate limit, or drops beyond
 * {@link #dropTolerance()} of recent attempts above the share this downstream usually fails with
 * (a single transient error is no overload, nor a steady few percent of them), multiply the limit
 * by {@link #decreaseFactor()} at once and start a new window, unless the attempt started before
 * the last such decrease (or at its very instant, with more in flight than the decreased limit);
 * successes admitted before it are not judged either (they are the overload's answers, and would
 * cut the new limit again). A rate limit also leaves a wall (what the refusal burst says the
 * downstream held: after {@code k} refusals with up to {@code n} in flight, about {@code n - k}, a
 * failure as fast as the refusals counting among the {@code k}): growth goes back to it and past
 * it only one slot at a time, each once the wall has stood for 30 Retry-Afters (round trips of a
 * success for a 429 without {@code Retry-After}). A burst refused at
 * or below the level the last one said was held met a rate, not a cap (a token bucket, refilled by
 * the pause): its wall holds the limit below the average in flight of the successes admitted since
 * the last decrease at the level resumed at or more, what the downstream ran out at by Little's
 * law. Success RTTs count as at least 1 microsecond; failure RTTs never enter the averages.
 *
 * <p>The limit is held as a fractional estimate; {@link LimitState#limit()} is its floor, always in
 * [min, max].
 *
 * <p>Defaults: initialLimit 5, minLimit 1, maxLimit {@link Integer#MAX_VALUE} (unbounded),
 * smoothing 0.15, longWindow 600, rttTolerance 1.15, decreaseFactor 0.5, probeWindow 3,
 * queueSize 2, dropTolerance 0.05.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function.
 */
public final class Gradient2 extends BoundedLimit {

    private static final double MIN_GRADIENT = 0.5;
    private static final double LONG_RTT_DECAY = 0.95;
    /** Slow start ends on the median of this many windows' answers, not on one window's. */
    private static final int SLOW_START_WINDOWS = 4;
    /** Slow start resumes at this multiple of the level it ended at, if latency is still normal there. */
    private static final int RESUME_FACTOR = 2;
    /** A window's median within this many of its standard errors of the long average is normal latency. */
    private static final double NOISE_ERRORS = 1;

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
        this.initialState = new State(bounds.initial(), 0, 0, 0, RttBatch.EMPTY, 0, 1.0, 0, false, Wall.NONE, 0, DropShare.NONE, true, RttBatch.EMPTY, 0, 0, 0);
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

    /** @return the factor applied to the limit on a rate limit or a run of drops; default 0.5 */
    public double decreaseFactor() {
        return decreaseFactor;
    }

    /** @return the number of successes whose median is shortRtt (one decision each); default 3 */
    public int probeWindow() {
        return probeWindow;
    }

    /**
     * @return the headroom added to the limit at each decision past slow start, in calls, when the
     *         window is at the tolerance (more when it is faster); default 2
     */
    public int queueSize() {
        return queueSize;
    }

    /** @return {@code "gradient2"} */
    @Override
    public String name() {
        return "gradient2";
    }

    @Override
    public LimitState initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by a {@code Gradient2}
     */
    @Override
    public LimitState update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not a Gradient2 state: " + state);
        }
        if (sample.isCongestion()) {
            return onCongestion(s, sample);
        }
        if (!sample.isSuccess()) {
            return s;
        }
        // What the client averages in flight after a rate limit's pause, for the next one.
        Wall counted = s.wall.admitted(sample.inflight(), sample.startNanos());
        if (counted != s.wall) {
            s = s.withWall(counted);
        }
        DropShare dropRate = drops.after(s.dropRate, false);
        if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos, s.limit())) {
            // Admitted before the last decrease, it ran under the limit the decrease replaced: its
            // latency is the overload's, and judged again it would cut the new limit again.
            return s.withDropRate(dropRate);
        }
        RttBatch window = s.window.plus(Samples.successRtt(sample));
        if (window.count() < probeWindow) {
            return new State(s.estimate, s.longRttNanos, s.longRttCount, s.longLevel, window, s.shortRttNanos, s.gradient,
                    s.lastDecreaseNanos, s.decreased, s.wall, s.proven, dropRate, s.slowStart, s.recent, s.slowStartEnd, s.noise, s.noiseWindows);
        }
        long[] rtts = window.toArray();
        double shortRtt = Samples.median(rtts);
        double longRtt = s.longRttNanos;
        int longCount = s.longRttCount;
        // One window of three answers in six reads 15% slow with no load at all (30% jitter):
        // slow start ends on the median of the last few windows' answers, which a real rise moves
        // and noise does not. Kept past slow start, so that a resumed one is judged the same way.
        long[] recentRtts = concat(s.recent.toArray(), rtts);
        // The relative noise of one answer, read from the interquartile range of those answers
        // (the tail does not widen it, and three answers alone are too few to read a spread from),
        // averaged over the windows like the long average over the answers.
        long[] sorted = RttHistory.sortedCopy(recentRtts);
        double recentMedian = Samples.medianOfSorted(sorted);
        double windowNoise = recentMedian > 0 ? Samples.interquartileRange(sorted) / Samples.IQR_PER_SD / recentMedian : 0;
        int noiseWindows = Math.min(s.noiseWindows + 1, longWindow + 1);
        double noise = s.noise + Math.max(1.0 / noiseWindows, Math.min(1, longWeight * probeWindow)) * (windowNoise - s.noise);
        // A window is the downstream's normal latency when within the tolerance of the long
        // average or within one standard error of a window's median of it: kept to the tolerance
        // alone, wide jitter's slow half of normal windows stayed out, and the average settled far
        // under the normal latency (0.77 of it at +-48%), reading windows with no queue as slow.
        // No wider: with two standard errors the client's own queueing walked the average up, and
        // the limit into the caps behind S6's and S2-tight's knees.
        double normalBound = longRtt * Math.max(rttTolerance,
                1 + NOISE_ERRORS * Samples.MEDIAN_ERROR_PER_SD * noise / Math.sqrt(rtts.length));
        boolean normal = longCount == 0 || shortRtt <= normalBound;
        int level = (int) Math.floor(s.estimate);
        int longLevel = s.longLevel;
        if (normal || 2L * level <= s.longLevel) {
            // The long average is the downstream's normal latency: it takes windows within the
            // tolerance, not the client's own queueing (which would drift it up, and the limit
            // with it into a hard cap). But a window still slow at half the concurrency the long
            // average last took such a window at is not the client's own queueing: the
            // downstream itself got slower, and the long average follows it.
            if (normal) {
                longLevel = level;
            }
            for (int i = 0; i < rtts.length; i++) {
                // Past longWindow samples the count no longer changes the weight; capping it avoids overflow.
                longCount = Math.min(longCount + 1, longWindow + 1);
                // Each answer counts as the window's median: a slow-tail answer the median ignores
                // would otherwise enter the average (one six-fold answer in a thin average raised
                // it by 40%), and the tail's share of it let the limit drift up past every knee.
                longRtt += Math.max(1.0 / longCount, longWeight) * (shortRtt - longRtt);
            }
        }
        if (longRtt > 2 * shortRtt) {
            longRtt *= LONG_RTT_DECAY;
        }
        double gradient = Math.max(MIN_GRADIENT, Math.min(1.0, rttTolerance * longRtt / shortRtt));
        boolean slow = rttTolerance * longRtt < shortRtt;
        int slowStartEnd = s.slowStartEnd;
        boolean slowStart = s.slowStart;
        RttBatch recent = newest(recentRtts, (SLOW_START_WINDOWS - 1) * probeWindow);
        if (slowStart) {
            slow = rttTolerance * longRtt < recentMedian;
            slowStart = !slow;
            slowStartEnd = slow ? level : 0;
        } else if (!slow && slowStartEnd > 0 && level >= (long) RESUME_FACTOR * slowStartEnd) {
            // Latency still normal at twice the level slow start ended at: the rise it ended on
            // was noise, since a downstream's own queueing does not shrink as load grows.
            slowStart = true;
            slowStartEnd = 0;
        }
        // Slow start, until a rise or a decrease: a quarter slot per answer (x1.25 per round trip,
        // spread over the answers), instead of queueSize per window.
        double slowStartLimit = s.estimate + probeWindow / (4 * smoothing);
        double newLimit;
        if (slowStart) {
            newLimit = slowStartLimit;
        } else {
            // Past slow start, a window as fast as the long average says the downstream has room
            // as clearly as in slow start, and grows as fast; one at the tolerance adds queueSize.
            double room = rttTolerance == 1 ? (shortRtt <= longRtt ? 1 : 0)
                    : Math.max(0, Math.min(1, (rttTolerance * longRtt / shortRtt - 1) / (rttTolerance - 1)));
            newLimit = room * slowStartLimit + (1 - room) * (s.estimate * gradient + queueSize);
        }
        double estimate = bounds.clamp(s.estimate * (1 - smoothing) + newLimit * smoothing);
        long now = Samples.decreaseTime(sample);
        // A window admitted with this many in flight ended without a refusal: the downstream held it.
        int held = Math.min(level, sample.inflight());
        Wall wall = s.wall.afterQuietProbeAt(held, now);
        if (estimate > s.estimate && wall.standing()) {
            // Growth goes back to what the downstream held before a rate limit, and past it only
            // one slot at a time, rarely.
            long bound = wall.bound(level, (long) Math.floor(estimate), now, true);
            estimate = Math.min(estimate, bound + (estimate - Math.floor(estimate)));
        }
        return new State(estimate, longRtt, longCount, longLevel, RttBatch.EMPTY, shortRtt, gradient,
                s.lastDecreaseNanos, s.decreased, wall, Math.max(s.proven, held), dropRate, slowStart, recent,
                slowStartEnd, noise, noiseWindows);
    }

    private static long[] concat(long[] older, long[] newer) {
        long[] all = Arrays.copyOf(older, older.length + newer.length);
        System.arraycopy(newer, 0, all, older.length, newer.length);
        return all;
    }

    private static RttBatch newest(long[] rtts, int count) {
        RttBatch batch = RttBatch.EMPTY;
        for (int i = Math.max(0, rtts.length - count); i < rtts.length; i++) {
            batch = batch.plus(rtts[i]);
        }
        return batch;
    }

    private State onCongestion(State s, Sample sample) {
        if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos, s.limit())) {
            // One decrease per overload; but each refusal of the burst (or failure as fast) says
            // more about the wall.
            Wall wall = sample.outcome() instanceof Outcome.RateLimited
                    ? s.wall.alsoRefusedAt(sample.inflight(), bounds.min())
                    : s.wall.alsoDroppedAt(sample.inflight(), sample.rttNanos(), bounds.min());
            if (!wall.equals(s.wall)) {
                return s.withWall(wall);
            }
            return s;
        }
        DropShare dropRate = drops.after(s.dropRate, true);
        if (sample.outcome() instanceof Outcome.Dropped && !drops.exceeded(dropRate)) {
            // One transient error is not an overload: halving on every one kept the limit near 10
            // where the knee was at 64 (1% of transient 500s).
            return new State(s.estimate, s.longRttNanos, s.longRttCount, s.longLevel, s.window, s.shortRttNanos, s.gradient, s.lastDecreaseNanos, s.decreased, s.wall, s.proven, dropRate,
                    s.slowStart, s.recent, s.slowStartEnd, s.noise, s.noiseWindows);
        }
        long now = Samples.decreaseTime(sample);
        double next = bounds.clamp(s.estimate * decreaseFactor);
        Wall wall = sample.outcome() instanceof Outcome.RateLimited r
                ? s.wall.refusedAgainAt(Math.min(sample.inflight(), (int) Math.floor(s.estimate)), s.proven, now,
                        Wall.waitUnit(r.retryAfter(), s.longRttNanos), sample.rttNanos(), bounds.min(),
                        (int) Math.floor(next))
                : s.wall;
        return new State(next, s.longRttNanos, s.longRttCount, s.longLevel, RttBatch.EMPTY,
                s.shortRttNanos, s.gradient, now, true, wall, 0, dropRate, false, RttBatch.EMPTY, 0, s.noise, s.noiseWindows);
    }

    @Override
    public String toString() {
        return "Gradient2[initialLimit=" + initialLimit() + ", minLimit=" + minLimit() + ", maxLimit=" + maxLimit()
                + ", smoothing=" + smoothing + ", longWindow=" + longWindow + ", rttTolerance=" + rttTolerance
                + ", decreaseFactor=" + decreaseFactor + ", probeWindow=" + probeWindow
                + ", queueSize=" + queueSize + "]";
    }

    /**
     * The state of a {@link Gradient2} limit between two samples. Immutable; folding a sample
     * allocates the next state and one small node. RTTs are in nanoseconds;
     * {@code shortRttNanos} is 0 and {@code gradient} 1 until the first probe window completes.
     *
     * @param estimate          the fractional limit, within the limit's [min, max]
     * @param longRttNanos      the long-term RTT average
     * @param longRttCount      successes averaged into it so far, capped at longWindow + 1
     * @param longLevel         the limit the long average last took a window within the tolerance at
     * @param window            the success RTTs of the probe window in progress (internal)
     * @param shortRttNanos     the median RTT of the last completed probe window
     * @param gradient          the gradient of the last completed probe window
     * @param lastDecreaseNanos when the last multiplicative decrease happened: the end
     *                          ({@code startNanos + rttNanos}) of the congestion sample that
     *                          caused it; congestion samples that started earlier are ignored
     * @param decreased         whether there was any such decrease; until then
     *                          {@code lastDecreaseNanos} means nothing
     * @param wall              what the last burst of rate limits said about the downstream's
     *                          cap (internal)
     * @param proven            the highest level a window ended at without a refusal since the
     *                          last decrease
     * @param dropRate          the recent and the usual share of failed attempts
     * @param slowStart         whether slow start goes on
     * @param recent            the answers of the last completed windows, which judge the end of
     *                          slow start with the window in progress (internal)
     * @param slowStartEnd      the level at which slow start last ended on a rise, or 0 if it
     *                          goes on, resumed, or ended on a decrease
     * @param noise             the relative standard deviation of one answer, averaged over the
     *                          windows (read from the interquartile range of the recent answers)
     * @param noiseWindows      windows averaged into {@code noise} so far, capped at longWindow + 1
     */
    record State(double estimate, double longRttNanos, int longRttCount, int longLevel, RttBatch window,
                        double shortRttNanos, double gradient, long lastDecreaseNanos,
                        boolean decreased, Wall wall, int proven, DropShare dropRate, boolean slowStart,
                        RttBatch recent, int slowStartEnd, double noise, int noiseWindows)
            implements LimitState {

        State withDropRate(DropShare rate) {
            return rate == dropRate ? this : new State(estimate, longRttNanos, longRttCount, longLevel, window, shortRttNanos,
                    gradient, lastDecreaseNanos, decreased, wall, proven, rate, slowStart, recent, slowStartEnd, noise, noiseWindows);
        }

        State withWall(Wall nextWall) {
            return new State(estimate, longRttNanos, longRttCount, longLevel, window, shortRttNanos,
                    gradient, lastDecreaseNanos, decreased, nextWall, proven, dropRate, slowStart, recent, slowStartEnd, noise, noiseWindows);
        }

        /** @return the floor of {@link #estimate()} */
        @Override
        public int limit() {
            // The cast saturates at Integer.MAX_VALUE, and the estimate is kept at or above min >= 1.
            return (int) Math.max(1, Math.floor(estimate));
        }

        /** @return shortRtt and longRtt (milliseconds), gradient, limit, wall, held, dropRate, slowStart (1 or 0) and noise */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("shortRtt", Samples.millis(shortRttNanos), "longRtt", Samples.millis(longRttNanos),
                    "gradient", gradient, "limit", (double) limit(), "wall", (double) wall.refused(),
                    "held", (double) wall.held(), "dropRate", dropRate.recent(), "slowStart", slowStart ? 1.0 : 0.0,
                    "noise", noise);
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
         * @param decreaseFactor the factor applied on a rate limit or a run of drops, strictly between 0 and 1;
         *                       default 0.5
         * @return this builder
         */
        public Builder decreaseFactor(double decreaseFactor) {
            this.decreaseFactor = decreaseFactor;
            return this;
        }

        /**
         * @param probeWindow successes whose median is shortRtt, at least 1; default 3
         * @return this builder
         */
        public Builder probeWindow(int probeWindow) {
            this.probeWindow = probeWindow;
            return this;
        }

        /**
         * @param queueSize headroom added at each decision past slow start when the window is at
         *                  the tolerance, in calls, at least 0; default 2
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
