package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

import java.util.Map;
import java.util.Objects;

/**
 * Additive increase, multiplicative decrease, with a latency trigger. A <em>window</em> is
 * {@link #stabilityWindow()} successes (half the limit during slow start) of attempts admitted
 * at the current limit since it last changed; its median RTT ({@code recentRtt}) over the
 * baseline is the {@code ratio}. A window at or above {@link #congestionThreshold()} multiplies
 * the limit by {@link #decreaseFactor()}; below it the limit grows: by half during slow start
 * (from the start until a window has risen halfway to the threshold, or a decrease), back to the
 * last level found unloaded as fast after a decrease, and otherwise by {@link #increaseStep()}.
 * A rate limit, or drops beyond {@link #dropTolerance()} of recent attempts above the share this
 * downstream usually fails with, decrease it at once.
 *
 * <p>A window that ends slow start or decreases the limit must say so beyond the jitter of its
 * few answers: a first such window whose median is not above the baseline answers' median by
 * three standard errors (read from their spread) holds the limit, and only the next window, if
 * it has risen too, acts. A downstream without jitter has no spread, so there every rise acts at
 * once. The first window, which has no past to be judged against, neither ends slow start nor
 * decreases the limit, unless its own answers say the initial limit is past the knee already:
 * admitted at every concurrency from one call up, they came back slower with each call more in
 * flight beyond chance, and the line through them reaches the threshold at the limit
 * ({@code FirstCohort}, as for {@link Vegas}). Then it decreases, and the answers admitted at up
 * to half the limit start the baseline.
 *
 * <p>Why windows take only attempts admitted since the last change: answers admitted before a
 * decrease are the overload itself, and judged again they would cut the limit again and again;
 * answers admitted before a raise are the old level's, and would raise it again before the new
 * level has answered at all (slow start would run straight past a knee). Why the median: a slow
 * tail of one answer in a window is common and is not congestion.
 *
 * <p>The baseline is the {@link #baseRttQuantile()} quantile of the last
 * {@link #baseRttWindow()} success RTTs of windows that could not have queued: windows risen
 * less than halfway to the threshold, and windows at levels already found so (if those read
 * slower now, the downstream got slower, and the baseline follows it). A client sitting near the
 * threshold must not feed its own queueing back into the baseline: the baseline would creep up,
 * and the limit with it past the knee. Only success RTTs, each counted as at least
 * 1 microsecond, enter it: near-instant failures would make every later window look congested.
 *
 * <p>A rate limit leaves a wall (what the refusal burst says the downstream held: after {@code k}
 * refusals with up to {@code n} in flight, about {@code n - k}); growth goes back to it and past
 * it only one slot at a time, each once the wall has stood for 30 Retry-Afters (one per slot held,
 * if more; round trips of a success instead for a 429 without {@code Retry-After}); a failure of
 * the burst as fast as its refusals counts among the {@code k}. A burst refused at or below the
 * level the last one said was held met a rate, not a cap (a token bucket, refilled by the pause):
 * its wall holds the limit below the average in flight of the successes admitted since the last
 * decrease at the level resumed at or more, what the downstream ran out at by Little's law. A
 * congestion sample that started before the last multiplicative decrease (or at
 * its very instant, with more in flight than the decreased limit) is ignored, so that the attempts
 * that were in flight together during one overload cost one decrease, not one each.
 *
 * <p>Defaults: initialLimit 5, minLimit 1, maxLimit {@link Integer#MAX_VALUE} (unbounded),
 * increaseStep 2, decreaseFactor 0.55, congestionThreshold 1.4, stabilityWindow 4,
 * baseRttWindow 100, baseRttQuantile 0.3, dropTolerance 0.05.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function.
 */
public final class Aimd extends BoundedLimit {

    private static final Aimd DEFAULTS = builder().build();

    /** How many standard errors a rise must exceed to be acted on without a second window. */
    private static final double NOISE_ERRORS = 3;

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
                Integer.MAX_VALUE, 0, 0, 0, 0, false, 0, false, 1, true, Wall.NONE, 0, 0, DropShare.NONE, false);
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

    /** @return the number of successes judged together past slow start (slow start takes half the limit); default 4 */
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
    public LimitState initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by an {@code Aimd}
     */
    @Override
    public LimitState update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not an Aimd state: " + state);
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
        if ((s.changed && sample.startNanos() - s.changedNanos < 0) || sample.inflight() < s.floor) {
            // Admitted before the limit last changed, it ran under another limit: a window of them
            // would judge that one again (after a halving, the slow answers of the overload would
            // halve it once more, and again; after a raise, the old level's fast answers would
            // raise it again before the new level has answered at all). Admitted below the limit
            // (a client with less work than the limit), it says nothing about the limit either.
            return s.withDropRate(dropRate);
        }
        RttBatch recent = s.recent.plus(Samples.successRtt(sample), sample.inflight());
        int floor = Math.min(s.windowFloor, sample.inflight());
        int size = s.slowStart ? Math.max(stabilityWindow, (s.limit + 1) / 2) : stabilityWindow;
        if (recent.count() < size) {
            return s.with(recent, floor, dropRate);
        }
        long[] window = recent.toArray();
        double recentRtt = Samples.median(window);
        // Judge the window against the past, not against itself; the first window has no past.
        double baselineRtt = s.history.isEmpty()
                ? RttHistory.quantileOfSorted(RttHistory.sortedCopy(window), baseRttQuantile)
                : s.history.quantile(baseRttQuantile);
        double ratio = recentRtt / baselineRtt;
        // Latency risen less than halfway to the threshold: the downstream is not loaded at this
        // level. Only such windows, and windows at levels already found unloaded (if those read
        // slower now, the downstream itself got slower), feed the baseline: a client that sits
        // near the threshold must not feed its own queueing back into it, or the baseline creeps
        // up and the limit with it, past the knee and into a hard cap.
        // The first window is judged against itself: its median over its own low quantile is its
        // spread, not a rise (about 1.2 for four answers with a jitter of 30%), so it cannot end
        // slow start or cut the limit.
        boolean first = s.history.isEmpty();
        // But the first window's answers were admitted at every concurrency up to the limit: if
        // those admitted with more in flight came back slower beyond chance, and the line through
        // them reaches the threshold at the limit, the initial limit is past the knee already
        // (a downstream of two or three workers): the answers admitted at up to half of it are
        // the baseline, and the limit decreases instead of slow-starting into the cap.
        FirstCohort cohort = first ? FirstCohort.of(window, recent.inflights(), s.limit) : null;
        if (cohort != null) {
            double unloadedRtt = cohort.unloadedRtt(baseRttQuantile);
            if (cohort.limitRttNanos() >= congestionThreshold * unloadedRtt) {
                int next = bounds.floor(s.limit * decreaseFactor);
                long at = Samples.decreaseTime(sample);
                return new State(next, RttHistory.empty(s.history.capacity()).plus(cohort.unloaded()), RttBatch.EMPTY,
                        Integer.MAX_VALUE, unloadedRtt, cohort.limitRttNanos(), cohort.limitRttNanos() / unloadedRtt,
                        at, true, at, true, next, false, s.wall, s.proven, cohort.level(), dropRate, false);
            }
        }
        boolean unloaded = first || ratio < 1 + (congestionThreshold - 1) / 2;
        boolean known = first || unloaded || s.limit <= s.baseLevel;
        RttHistory history = known ? s.history.plus(window) : s.history;
        int baseLevel = unloaded ? Math.max(s.baseLevel, s.limit) : known ? s.limit : s.baseLevel;
        long now = Samples.decreaseTime(sample);
        boolean congested = !first && ratio >= congestionThreshold;
        if (!unloaded && !s.rose && (congested || s.slowStart) && !risenBeyondNoise(window, s.history)) {
            // A rise that the jitter of a few answers could make: the median of four answers with
            // a jitter of 30% reads 1.3 to 1.5 times a thin baseline now and then with no load at
            // all, and each such window ended slow start or halved the limit. Hold the limit (no
            // growth, so no risk of running past a knee) and let the next window confirm or clear
            // it; a rise beyond the noise (a knee passed by a step, a queue) acts at once.
            return new State(s.limit, history, RttBatch.EMPTY, Integer.MAX_VALUE, baselineRtt, recentRtt, ratio,
                    s.lastDecreaseNanos, s.decreased, s.changedNanos, s.changed, s.floor, s.slowStart, s.wall,
                    s.proven, baseLevel, dropRate, true);
        }
        if (congested) {
            int next = bounds.floor(s.limit * decreaseFactor);
            return new State(next, history, RttBatch.EMPTY, Integer.MAX_VALUE, baselineRtt, recentRtt, ratio, now, true,
                    now, true, next, false, s.wall, s.proven, baseLevel, dropRate, false);
        }
        // Slow start grows by half per window while the downstream is unloaded: once latency has
        // risen halfway to the threshold the knee is near, and growth is additive.
        boolean slowStart = s.slowStart && unloaded;
        long grow = slowStart ? Math.max(increaseStep, (s.limit + 1L) / 2) : increaseStep;
        if (!slowStart && s.limit < baseLevel) {
            // Below a level already found unloaded (after a decrease): back to it as fast as slow
            // start would go, not one step per round trip.
            grow = Math.max(increaseStep, Math.min((s.limit + 1L) / 2, (long) baseLevel - s.limit));
        }
        // A window whose attempts were all admitted with at least this many in flight, and ended
        // without a refusal: the downstream held that many.
        Wall wall = s.wall.afterQuietProbeAt(floor, now);
        int next = bounds.clamp(wall.bound(s.limit, s.limit + grow, now, true));
        boolean moved = next != s.limit;
        return new State(next, history, RttBatch.EMPTY, Integer.MAX_VALUE, baselineRtt, recentRtt, ratio,
                s.lastDecreaseNanos, s.decreased, moved ? now : s.changedNanos, s.changed || moved,
                moved ? next : s.floor, slowStart, wall, Math.max(s.proven, Math.min(floor, s.limit)), baseLevel,
                dropRate, !unloaded);
    }

    /**
     * Whether the window's median is above the baseline answers' median by more than three
     * standard errors of the difference: each median's error is about 1.25 standard deviations
     * over the square root of its count, the deviation read robustly from the larger
     * interquartile range of the two (0.74 of it), so that one slow tail answer does not widen
     * it. A downstream without jitter has no spread, and every rise is beyond it.
     */
    private static boolean risenBeyondNoise(long[] window, RttHistory history) {
        long[] w = RttHistory.sortedCopy(window);
        long[] h = history.isEmpty() ? w : history.sorted();
        double sd = Math.max(Samples.interquartileRange(w), Samples.interquartileRange(h)) / Samples.IQR_PER_SD;
        double se = Samples.MEDIAN_ERROR_PER_SD * sd * Math.sqrt(1.0 / w.length + 1.0 / h.length);
        return Samples.median(w) - Samples.median(h) > NOISE_ERRORS * se;
    }

    private State onCongestion(State s, Sample sample) {
        if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos, s.limit)) {
            // One decrease per overload; but each refusal of the burst (or failure as fast) says
            // more about the wall.
            Wall wall = sample.outcome() instanceof Outcome.RateLimited
                    ? s.wall.alsoRefusedAt(sample.inflight(), bounds.min())
                    : s.wall.alsoDroppedAt(sample.inflight(), sample.rttNanos(), bounds.min());
            return wall.equals(s.wall) ? s : s.withWall(wall);
        }
        DropShare dropRate = drops.after(s.dropRate, true);
        if (sample.outcome() instanceof Outcome.Dropped && !drops.exceeded(dropRate)) {
            // A transient error is not an overload; the latency and the drop rate will tell if
            // more follow.
            return s.withDropRate(dropRate);
        }
        long now = Samples.decreaseTime(sample);
        // A rate limit refused the concurrency its attempt was admitted at: remember where, so that
        // growth does not walk into the same cap again one Retry-After later. Drops do not: a run
        // of errors may be an outage that has nothing to do with concurrency.
        int next = bounds.floor(s.limit * decreaseFactor);
        Wall wall = sample.outcome() instanceof Outcome.RateLimited r
                ? s.wall.refusedAgainAt(Math.min(sample.inflight(), s.limit), s.proven, now,
                        Wall.waitUnit(r.retryAfter(), s.baselineRttNanos), sample.rttNanos(), bounds.min(), next)
                : s.wall;
        return new State(next, s.history, RttBatch.EMPTY, Integer.MAX_VALUE, s.baselineRttNanos, s.recentRttNanos,
                s.ratio, now, true, now, true, next, false, wall, 0, s.baseLevel, dropRate, false);
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
     * @param windowFloor       the fewest in flight any attempt of the window in progress was
     *                          admitted with ({@link Integer#MAX_VALUE} while it is empty)
     * @param baselineRttNanos  the baseline the last window was judged against
     * @param recentRttNanos    the median RTT of the last window
     * @param ratio             recentRtt / baselineRtt of the last window
     * @param lastDecreaseNanos when the last multiplicative decrease happened: the end
     *                          ({@code startNanos + rttNanos}) of the sample that caused it;
     *                          congestion samples that started earlier are ignored
     * @param decreased         whether there was any such decrease; until then
     *                          {@code lastDecreaseNanos} means nothing
     * @param changedNanos      when the limit last changed; successes admitted earlier join no window
     * @param changed           whether it changed at all; until then {@code changedNanos} means nothing
     * @param floor             successes admitted with fewer in flight join no window: the limit
     *                          since it changed, 1 before any change
     * @param slowStart         whether slow start goes on
     * @param wall              what the last burst of rate limits said about the downstream's
     *                          cap (internal)
     * @param proven            the highest level a window ended at without a refusal since the
     *                          last decrease
     * @param baseLevel         the highest level found unloaded: windows at or below it feed the
     *                          baseline
     * @param dropRate          the recent and the usual share of failed attempts
     * @param rose              whether the last window had risen halfway to the threshold or more:
     *                          a rise within the noise then acts instead of holding
     */
    record State(int limit, RttHistory history, RttBatch recent, int windowFloor, double baselineRttNanos,
                        double recentRttNanos, double ratio, long lastDecreaseNanos, boolean decreased,
                        long changedNanos, boolean changed, int floor, boolean slowStart, Wall wall, int proven,
                        int baseLevel, DropShare dropRate, boolean rose) implements LimitState {

        State with(RttBatch nextRecent, int nextWindowFloor, DropShare rate) {
            return new State(limit, history, nextRecent, nextWindowFloor, baselineRttNanos, recentRttNanos, ratio,
                    lastDecreaseNanos, decreased, changedNanos, changed, floor, slowStart, wall, proven, baseLevel, rate,
                    rose);
        }

        State withWall(Wall nextWall) {
            return new State(limit, history, recent, windowFloor, baselineRttNanos, recentRttNanos, ratio,
                    lastDecreaseNanos, decreased, changedNanos, changed, floor, slowStart, nextWall, proven, baseLevel,
                    dropRate, rose);
        }

        State withDropRate(DropShare rate) {
            return rate == dropRate ? this : with(recent, windowFloor, rate);
        }

        /** @return baselineRtt and recentRtt (milliseconds), ratio, limit, wall, held and slowStart (1 or 0) */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("baselineRtt", Samples.millis(baselineRttNanos), "recentRtt", Samples.millis(recentRttNanos),
                    "ratio", ratio, "limit", (double) limit, "wall", (double) wall.refused(),
                    "held", (double) wall.held(), "slowStart", slowStart ? 1.0 : 0.0);
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
         * @param stabilityWindow successes judged together past slow start, at least 1; default 4
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
