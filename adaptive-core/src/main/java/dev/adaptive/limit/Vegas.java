package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * The default limit: a delay-based algorithm after TCP Vegas. It estimates how many calls are
 * queued at the downstream from how much slower recent calls are than the no-load baseline,
 * and keeps that queue between alpha and beta.
 *
 * <p><b>Probes.</b> A probe collects the success RTTs of attempts admitted at the current limit
 * since it last changed: at least {@link #probeWindow()} of them and at least half the limit,
 * about one round trip's worth. Attempts admitted earlier, or below the limit, ran at another
 * concurrency and say nothing about this one. While the limit holds, a probe is judged together
 * with the one before it at the same limit: at the operating point a decision on one small
 * window of a jittery downstream would be mostly luck. {@code probeRtt} is the probe's
 * {@link #baseRttQuantile()} quantile, {@code baseRtt} the same quantile of the baseline history,
 * and {@code queue = limit * (1 - baseRtt / probeRtt)}. Comparing the same quantile on both
 * sides keeps the downstream's jitter out of the estimate; a queue only counts as found when the
 * two quantiles differ by more than twice their sampling noise (read from the interquartile
 * ranges), so that small probes of a jittery downstream are not taken for congestion.
 *
 * <p><b>Answers below the limit</b> cannot show room above it, but a queue at a lower
 * concurrency shows there is none: once the baseline holds 20 RTTs, the successes admitted since
 * the window opened with fewer than the limit but more than beta in flight form a window of their
 * own (as many as a probe), judged at {@code n}, their median in flight, by the same test. A
 * queue beyond beta' at {@code n} lowers the limit to {@code n} less the excess (at most down to
 * {@code limit * decreaseFactor}) and ends slow start; anything else leaves it as it was. A limit
 * that outgrew the load it was tested at (a fleet member held to its share while the others load
 * the downstream; a client whose work thinned while the downstream slowed) is otherwise judged by
 * nothing, and stays where it was.
 *
 * <p><b>The first window</b> has no baseline to be judged by, and judges itself: it reads no
 * queue. But its attempts were admitted at every concurrency from one call up to the initial
 * limit, so it carries a gradient of its own ({@code FirstCohort}): when the answers admitted
 * with more calls in flight came back slower in an order chance rarely gives (Kendall's test,
 * one-sided 5 %), and the line through them puts the limit past the band (a queue above beta'
 * against the answers admitted at up to half the limit), the initial limit is already past the
 * downstream's knee. Those answers then start the baseline, the level they ran at is the
 * unloaded one, and the limit steps back into the band instead of growing into a hard cap (a
 * downstream of two or three workers behind the default initial limit of 5).
 *
 * <p><b>Decisions.</b> With {@code alpha' = max(alpha, alphaShare * limit)} and
 * {@code beta' = max(beta, betaShare * limit)} (one call of queue is a lot at a limit of 5 and
 * nothing at 100):
 * <ul>
 *   <li>queue above beta': the limit drops by the excess, {@code queue - beta'} rounded up, at
 *       most down to {@code limit * decreaseFactor}: one step back into the band;</li>
 *   <li>queue below alpha': during <em>slow start</em> the limit grows by up to
 *       {@link #slowStartFactor()}, in proportion to the headroom left below alpha' so that the
 *       last step before the knee is a short one (and by one slot only right after a probe that
 *       did find a queue); and when the probe's queue is surely there, no further than where it
 *       would reach alpha' if it kept growing as the square of the distance from the last level
 *       found unloaded (past a knee latency rises ever faster; a step the queue's growth so far
 *       already puts past the band lands on a hard cap right above the knee); after slow start it grows by a step that starts at one slot and
 *       doubles with each such probe in a row (never by more than slow start would, and by one
 *       slot once the queue is past half of alpha'), so that
 *       one lucky probe at the operating point costs one slot while a limit far below it (after
 *       an overload) is back within a few probes;</li>
 *   <li>otherwise it holds, and the pace of growth starts again at one slot.</li>
 * </ul>
 * Slow start ends at the first probe with a queue beyond beta', at the second in a row beyond
 * alpha', or at an overload.
 *
 * <p><b>The wall.</b> Some downstreams refuse past a hard cap without slowing down first (a
 * gateway's concurrency quota, a proxy's connection limit). A burst of rate limits leaves a wall:
 * what the downstream held, read from the whole burst (after {@code k} refusals with up to
 * {@code n} in flight it held about {@code n - k}, a failure as fast as the refusals counting
 * among the {@code k}; and the level of the last probe, which ended without a refusal). After the
 * halving, growth goes back up to that level at Vegas's own pace (every step a probe that reads
 * the queue, so a knee below the level held still stops it), and past it only one slot at a time,
 * each after eight quiet probes in a row and once the wall has stood for 30 Retry-Afters (or one
 * per slot held, if more): a wrong probe then costs the pause of one Retry-After in thirty, no
 * more than one more slot would have earned. A 429 without {@code Retry-After} costs no pause but
 * the halving, recovered within a few round trips: its wall stands for as many round trips of a
 * success (the baseline) instead. A probe at the refused level itself that ends without
 * a refusal means the cap has moved, and the wall is forgotten. A burst refused at or below the
 * level the last one said was held met a rate, not a cap (a token bucket, refilled by the pause):
 * its wall holds the limit below the average in flight of the successes admitted since the last
 * decrease at the level resumed at or more, what the downstream ran out at by Little's law.
 *
 * <p><b>Baseline protection.</b> A client that keeps the downstream at its best operating point
 * must not feed its own queueing delay back into the baseline: the baseline would creep up and
 * the limit with it, into the server's hard cap. So the baseline history takes only probes that
 * could not have queued: the first 20 RTTs, slow-start probes with less than
 * half of alpha' of queue (their level then counts as unloaded: {@code baseLevel}), later probes
 * at no more than that level, and probes surely faster than the baseline (it was taken cold:
 * new connections, an unwarmed JIT; or the downstream got faster). When the downstream's normal
 * latency rises, the queue estimate pushes the limit down to that level, where the new latency
 * is accepted and the limit grows again; it never sticks at the minimum. Failures never enter the baseline: they often
 * return almost at once and would make the downstream look faster than it is.
 *
 * <p><b>Failures.</b> A rate limit multiplies the limit by {@link #decreaseFactor()} at once and
 * ends slow start. Drops (errors, timeouts) do the same only when they exceed, by more than
 * {@link #dropTolerance()} of recent attempts and beyond chance, the share this downstream usually
 * fails with: an isolated transient error is not an overload, five in a row are, and a steady few
 * percent of failures that come whatever the load (a flaky dependency behind the downstream) are
 * not either. Congestion from attempts admitted before the last such decrease is ignored:
 * the decrease already acted on it.
 *
 * <p>Defaults: initialLimit 5, minLimit 1, maxLimit {@link Integer#MAX_VALUE} (unbounded),
 * alpha 1, beta 2, alphaShare 0.1, betaShare 0.2, decreaseFactor 0.5, dropTolerance 0.05,
 * probeWindow 5, slowStartFactor 1.5, baseRttWindow 100, baseRttQuantile 0.3.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function.
 */
public final class Vegas extends BoundedLimit {

    /**
     * Slow start feeds every probe to the baseline until it holds this many RTTs: a thinner
     * baseline is too noisy to judge a probe by, and its low quantile shrugs off the odd probe
     * that did queue.
     */
    private static final int MIN_BASELINE = 20;

    /** The doubling step a run of quiet probes must reach (eight in a row) before the limit probes the wall. */
    private static final int WALL_PATIENCE = 256;


    /**
     * During slow start, a baseline this many times slower than a probe is stale (the first
     * answers of cold connections and a cold JIT, often ten times the steady latency) and the
     * probe restarts it. A smaller margin would let the chance-fast probes of a jittery
     * downstream reset a good baseline to a thin, low one.
     */
    private static final double STALE_BASELINE = 1.5;

    /** How many standard errors apart the quantiles must be for a queue to count. */
    private static final double Z = 2;

    /** No earlier probe at the current limit. */
    private static final RttHistory NO_LEVEL = RttHistory.empty(1);

    private static final Vegas DEFAULTS = builder().build();

    private final double alpha;
    private final double beta;
    private final double alphaShare;
    private final double betaShare;
    private final double decreaseFactor;
    private final int probeWindow;
    private final double slowStartFactor;
    private final int baseRttWindow;
    private final double baseRttQuantile;
    private final State initialState;

    private Vegas(Builder b) {
        super(b);
        this.alpha = OptionChecks.atLeast("alpha", b.alpha, 0);
        if (!(b.beta >= b.alpha) || Double.isInfinite(b.beta)) {
            throw new IllegalArgumentException("beta must be finite and >= alpha (" + b.alpha + "): " + b.beta);
        }
        this.beta = b.beta;
        this.alphaShare = OptionChecks.closedUnit("alphaShare", b.alphaShare);
        if (b.alpha == 0 && b.alphaShare == 0) {
            // The limit grows only while the queue reads below alpha', which can never be below 0.
            throw new IllegalArgumentException("alpha and alphaShare must not both be 0 (the limit could never grow):"
                    + " alpha=0.0, alphaShare=0.0");
        }
        if (!(b.betaShare >= b.alphaShare && b.betaShare <= 1)) {
            throw new IllegalArgumentException(
                    "betaShare must be >= alphaShare (" + b.alphaShare + ") and <= 1: " + b.betaShare);
        }
        this.betaShare = b.betaShare;
        this.decreaseFactor = OptionChecks.openUnit("decreaseFactor", b.decreaseFactor);
        this.probeWindow = OptionChecks.atLeast("probeWindow", b.probeWindow, 1);
        this.slowStartFactor = OptionChecks.between("slowStartFactor", b.slowStartFactor, 1, 4);
        this.baseRttWindow = OptionChecks.between("baseRttWindow", b.baseRttWindow, 1, RttHistory.MAX_CAPACITY);
        this.baseRttQuantile = OptionChecks.closedUnit("baseRttQuantile", b.baseRttQuantile);
        this.initialState = new State(bounds.initial(), RttHistory.empty(baseRttWindow), RttBatch.EMPTY,
                RttBatch.EMPTY, NO_LEVEL, 1, 0, 0, 0, 0, false, 1, Wall.NONE, 0, 0, true, 0, false, 0, DropShare.NONE);
    }

    /** @return a new builder with the defaults listed on {@link Vegas}; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the shared instance with all defaults */
    public static Vegas defaults() {
        return DEFAULTS;
    }

    /** @return the least queue, in calls, below which the limit grows; default 1 */
    public double alpha() {
        return alpha;
    }

    /** @return the least queue, in calls, above which the limit shrinks; default 2 */
    public double beta() {
        return beta;
    }

    /** @return the share of the limit that alpha grows to at large limits; default 0.1 */
    public double alphaShare() {
        return alphaShare;
    }

    /** @return the share of the limit that beta grows to at large limits; default 0.2 */
    public double betaShare() {
        return betaShare;
    }

    /** @return the factor applied to the limit on a rate limit or a run of drops; default 0.5 */
    public double decreaseFactor() {
        return decreaseFactor;
    }

    /** @return the least number of successes per probe (one decision each); default 5 */
    public int probeWindow() {
        return probeWindow;
    }

    /** @return the growth factor per probe during slow start; default 1.5 */
    public double slowStartFactor() {
        return slowStartFactor;
    }

    /** @return the number of success RTTs the baseline is taken from; default 100 */
    public int baseRttWindow() {
        return baseRttWindow;
    }

    /** @return the quantile compared on both sides, baseline and probe; default 0.3 */
    public double baseRttQuantile() {
        return baseRttQuantile;
    }

    /** @return {@code "vegas"} */
    @Override
    public String name() {
        return "vegas";
    }

    @Override
    public LimitState initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by a {@code Vegas}
     */
    @Override
    public LimitState update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not a Vegas state: " + state);
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
        boolean fresh = !s.windowSet || sample.startNanos() - s.windowStartNanos >= 0;
        if (!fresh || sample.inflight() < s.probeFloor) {
            if (fresh && sample.inflight() > beta && s.history.size() >= MIN_BASELINE) {
                // Admitted below the limit (the client had less work, or a fleet's share held it):
                // no evidence of room above the limit, but a queue at this lower concurrency is
                // evidence against it.
                RttBatch below = s.below.plus(Samples.successRtt(sample), sample.inflight());
                return below.count() < Math.max(probeWindow, (s.limit + 1) / 2)
                        ? s.with(s.probe, below, dropRate)
                        : judgeBelow(s, below, dropRate, Samples.decreaseTime(sample));
            }
            // Admitted under an earlier limit, or at too few in flight to queue beyond beta, or
            // before the baseline can judge: it says nothing about this limit. This case changes
            // nothing else, and then allocates nothing (a lightly loaded client's every answer)
            // unless a rate limit's wall counts it above (admitted at the level resumed at or more);
            // an answer kept in the window below the limit costs one node and one state, as a
            // probe's does.
            return dropRate == s.dropRate ? s : s.with(s.probe, dropRate);
        }
        RttBatch probe = s.probe.plus(Samples.successRtt(sample), sample.inflight());
        if (probe.count() < Math.max(probeWindow, (s.limit + 1) / 2)) {
            return s.with(probe, dropRate);
        }
        return decide(s, probe, dropRate, Samples.decreaseTime(sample));
    }

    private State onCongestion(State s, Sample sample) {
        if (Samples.isStale(sample, s.decreased, s.lastDecreaseNanos, s.limit)) {
            // No second decrease for the same overload; but every refusal of the burst tells
            // more about the wall: one admitted at fewer in flight lowers the refused level, and
            // each one more means one fewer that the server held.
            Wall wall = sample.outcome() instanceof Outcome.RateLimited
                    ? s.wall.alsoRefusedAt(sample.inflight(), bounds.min())
                    : s.wall.alsoDroppedAt(sample.inflight(), sample.rttNanos(), bounds.min());
            return wall.equals(s.wall) ? s : s.withWall(wall);
        }
        DropShare dropRate = drops.after(s.dropRate, true);
        boolean overload = sample.outcome() instanceof Outcome.RateLimited || drops.exceeded(dropRate);
        long now = Samples.decreaseTime(sample);
        if (!overload) {
            // A transient error is not an overload; the latency and the drop rate will tell if
            // more follow.
            return s.with(s.probe, dropRate);
        }
        int next = bounds.floor(s.limit * decreaseFactor);
        // A rate limit refused the concurrency its attempt was admitted at: remember it as the
        // wall. Drops do not: a run of errors may be an outage that has nothing to do with
        // concurrency, and a wall left by it would hold the limit down after the recovery.
        Wall wall = sample.outcome() instanceof Outcome.RateLimited r
                ? s.wall.refusedAgainAt(Math.min(sample.inflight(), s.limit), s.proven, now,
                        Wall.waitUnit(r.retryAfter(), s.baseRttNanos), sample.rttNanos(), bounds.min(), next)
                : s.wall;
        return new State(next, s.history, RttBatch.EMPTY, RttBatch.EMPTY, NO_LEVEL, next, s.queue, s.baseRttNanos,
                s.probeRttNanos, now, true, 1, wall, s.proven, s.baseLevel, false, 0, true, now, dropRate);
    }

    private State decide(State s, RttBatch batch, DropShare dropRate, long now) {
        long[] fresh = batch.toArray();
        RttHistory history = s.history;
        // The first window has no baseline, but its answers were admitted at every concurrency up
        // to the limit: if those admitted with more in flight came back surely slower, the initial
        // limit is past the knee already, and the others are its baseline.
        FirstCohort cohort = history.isEmpty() ? FirstCohort.of(fresh, batch.inflights(), s.limit) : null;
        double cohortRtt = cohort == null ? 0 : cohort.unloadedRtt(baseRttQuantile);
        if (cohort != null
                && s.limit * (1 - cohortRtt / cohort.limitRttNanos()) <= Math.max(beta, betaShare * s.limit)) {
            // Past the knee by no more than the band allows: a small gradient in five answers may
            // well be chance, and it would hold slow start back for nothing.
            cohort = null;
        }
        long[] window = pooled(s.level, fresh);
        // A whole probe at or past the refused level without a refusal: the cap has moved.
        Wall wall = s.wall.afterQuietProbeAt(s.limit, now);
        long[] sortedWindow = RttHistory.sortedCopy(window);
        double probeRtt = RttHistory.quantileOfSorted(sortedWindow, baseRttQuantile);
        if (s.discovering && !s.history.isEmpty() && window.length >= 6) {
            // In slow start the window's first answers come from the ramp to the new limit: the
            // downstream had fewer calls than the client counts (new connections still opening),
            // and a low quantile picks exactly those. The newest half shows the level reached.
            // Only a rise from the older half to the newer beyond the sampling noise counts: the
            // halves of a jittery window differ by chance.
            int half = window.length / 2;
            long[] oldest = RttHistory.sortedCopy(Arrays.copyOfRange(window, 0, half));
            long[] newest = RttHistory.sortedCopy(Arrays.copyOfRange(window, window.length - half, window.length));
            double newestRtt = RttHistory.quantileOfSorted(newest, baseRttQuantile);
            double oldestRtt = RttHistory.quantileOfSorted(oldest, baseRttQuantile);
            if (newestRtt > probeRtt && Math.log(newestRtt / oldestRtt) > Z * standardError(newest, oldest)) {
                probeRtt = newestRtt;
            }
        }
        // The baseline comes from calls that could not have queued, never from this window's
        // own level; only before any baseline exists does the window judge itself.
        long[] sortedHistory = history.isEmpty() ? sortedWindow : history.sorted();
        double baseRtt = RttHistory.quantileOfSorted(sortedHistory, baseRttQuantile);
        if (cohort != null) {
            // The cohort's own gradient, already tested beyond chance: its unloaded answers
            // against its line at the limit.
            baseRtt = cohortRtt;
            probeRtt = Math.max(baseRtt, cohort.limitRttNanos());
        }
        // A probe faster than the baseline means no queue, not a negative one.
        double queue = Math.max(0, s.limit * (1 - baseRtt / probeRtt));
        double alphaNow = Math.max(alpha, alphaShare * s.limit);
        double betaNow = Math.max(beta, betaShare * s.limit);
        boolean unqueued = queue < alphaNow;
        // Small windows of a jittery downstream differ by chance by as much as a real queue
        // would make them; a queue only counts when the two quantiles are further apart than
        // their sampling noise allows. A downstream without jitter is judged exactly.
        double noise = Z * standardError(sortedWindow, sortedHistory);
        boolean significant = cohort != null || Math.log(probeRtt / baseRtt) > noise;
        // A probe surely faster than the baseline means the baseline is stale: taken while the
        // client was warming up (new connections, a cold JIT) or before the downstream got faster.
        boolean faster = !history.isEmpty() && Math.log(baseRtt / probeRtt) > noise;

        int baseLevel = s.baseLevel;
        // Slow start ends at a queue beyond beta', or at the second probe in a row that finds
        // one beyond alpha': a single one, at the small windows of low limits, may be chance.
        int queuedInARow = unqueued ? 0 : significant ? s.queuedInARow + 1 : s.queuedInARow;
        boolean overshoot = queue > betaNow && significant;
        boolean discovering = s.discovering && queuedInARow < 2 && !overshoot;
        if (discovering && (queue < alphaNow / 2 || history.size() < MIN_BASELINE)) {
            // Still below the knee, or the baseline is too thin to judge by yet. Only the first
            // makes this level as unloaded as the baseline's (and everything up to it from now
            // on): a probe taken in only to thicken the baseline may well have queued, and a
            // level raised by it would feed that queue to the baseline for good.
            if (queue < alphaNow / 2) {
                baseLevel = Math.max(baseLevel, s.limit);
            }
            history = faster && baseRtt > STALE_BASELINE * probeRtt ? restart(history, fresh) : history.plus(fresh);
        } else if (history.isEmpty() || faster || s.limit <= Math.max(baseLevel, bounds.min())) {
            history = history.plus(fresh);
            baseLevel = Math.min(baseLevel, s.limit);
        }

        if (cohort != null) {
            history = RttHistory.empty(history.capacity()).plus(cohort.unloaded());
            baseLevel = cohort.level();
        }

        long next = s.limit;
        int step = 1;
        if (overshoot) {
            long excess = (long) Math.ceil(queue - betaNow);
            next = Math.max(s.limit - excess, bounds.floor(s.limit * decreaseFactor));
        } else if (unqueued) {
            // Growth in proportion to the headroom left below alpha', so that the last step
            // before the knee is a small one and cannot leap into a hard cap beyond it.
            double headroom = Math.min(1, 2 * (1 - queue / Math.max(alphaNow, Double.MIN_NORMAL)));
            long proportional = (long) Math.ceil(s.limit * (slowStartFactor - 1) * headroom);
            // Slow start takes the whole step at once; afterwards the step starts at one slot
            // and doubles with each probe in a row that finds no queue, so that one lucky probe
            // near the knee costs one slot, while a limit far below the knee (after an
            // overload, or a noisy probe that ended slow start early) is back within a few.
            // Slow start takes the whole step only after a probe that found no queue either: right
            // after one that did, a probe that finds none is more likely luck than room.
            // Past slow start a queue beyond half of alpha' means the operating point is near:
            // one slot, whatever the pace was (at a limit of a few calls, two slots can be a
            // third more, straight into a hard cap).
            long grow = s.discovering && s.queuedInARow == 0 ? proportional
                    : Math.min(s.step, proportional);
            if (!s.discovering && queue >= alphaNow / 2) {
                grow = 1;
            }
            next = s.limit + Math.max(1, grow);
            if (s.discovering && significant && queue > 0 && s.limit > s.baseLevel) {
                next = Math.min(next, Math.max(s.limit + 1, curvatureBound(s.limit, s.baseLevel, queue)));
            }
            step = (int) Math.min(1 << 20, 2L * s.step);
            // A downstream whose cap comes without a rise in latency: back to the level it held at
            // once, and one slot past it only once the wall has stood long enough to be worth the
            // pause a wrong probe costs.
            long bounded = wall.bound(s.limit, next, now, s.step >= WALL_PATIENCE);
            if (bounded != next && bounded > s.limit && bounded > wall.held()) {
                step = 1;
            }
            next = bounded;
        }
        // A queue in alpha'..beta' (surely there or not) is the operating point: the pace of
        // growth starts again at one slot.
        int limit = bounds.clamp(next);
        // The limit holds: this probe and the one before judge it together next time.
        RttHistory level = limit == s.limit
                ? RttHistory.empty((int) Math.min(RttHistory.MAX_CAPACITY, 2L * fresh.length)).plus(window)
                : NO_LEVEL;
        return new State(limit, history, RttBatch.EMPTY, RttBatch.EMPTY, level, limit, queue, baseRtt, probeRtt,
                s.lastDecreaseNanos, s.decreased, step, wall, s.limit, baseLevel, discovering, queuedInARow, true,
                now, dropRate);
    }

    /**
     * The highest level whose queue stays within alpha' if the queue keeps growing as it has
     * since the last level found unloaded, at least as fast as the square of the distance from it
     * (latency past a knee rises ever faster, so a straight line would under-read it): from no
     * queue at {@code unloaded} to {@code queue} at {@code limit}. A slow-start step past it would
     * land beyond the band by what the probe has already seen, and a hard cap next to the knee
     * would then be met at once.
     */
    private long curvatureBound(int limit, int unloaded, double queue) {
        double d = limit - unloaded;
        // queue * x^2 <= max(alpha, alphaShare * (unloaded + x * d)), x = (level - unloaded) / d
        double byShare = (alphaShare * d + Math.sqrt(alphaShare * alphaShare * d * d + 4 * queue * alphaShare * unloaded))
                / (2 * queue);
        double byFloor = Math.sqrt(alpha / queue);
        return (long) Math.floor(unloaded + Math.max(byShare, byFloor) * d);
    }

    /**
     * A window of answers admitted below the limit, at {@code n} in flight (their median): when
     * they show a queue beyond beta' at {@code n} itself, surely (the same test as a probe's), the
     * limit is past what the downstream takes, however long ago it was set: it drops to
     * {@code n} less the excess, at most down to {@code limit * decreaseFactor}. Without this a
     * limit that outgrew the load it was tested at (a fleet member held to its share while the
     * others load the downstream, a client whose work thinned while the downstream slowed) is
     * judged by nothing and stays, and a fleet's ceiling (the median of the members' limits)
     * with it. Answers below the limit never grow it and never feed the baseline.
     */
    private State judgeBelow(State s, RttBatch below, DropShare dropRate, long now) {
        long[] sortedWindow = RttHistory.sortedCopy(below.toArray());
        int n = median(below.inflights());
        long[] sortedHistory = s.history.sorted();
        double probeRtt = RttHistory.quantileOfSorted(sortedWindow, baseRttQuantile);
        double baseRtt = RttHistory.quantileOfSorted(sortedHistory, baseRttQuantile);
        double queue = Math.max(0, n * (1 - baseRtt / probeRtt));
        double betaAtN = Math.max(beta, betaShare * n);
        boolean significant = Math.log(probeRtt / baseRtt) > Z * standardError(sortedWindow, sortedHistory);
        long next = queue > betaAtN && significant
                ? Math.max(n - (long) Math.ceil(queue - betaAtN), bounds.floor(s.limit * decreaseFactor))
                : s.limit;
        int limit = bounds.clamp(next);
        if (limit >= s.limit) {
            return s.with(s.probe, RttBatch.EMPTY, dropRate);
        }
        return new State(limit, s.history, RttBatch.EMPTY, RttBatch.EMPTY, NO_LEVEL, limit, queue, baseRtt,
                probeRtt, s.lastDecreaseNanos, s.decreased, 1, s.wall, s.proven, s.baseLevel, false,
                s.queuedInARow, true, now, dropRate);
    }

    /** @return the upper median of the counts; sorts them in place */
    private static int median(int[] counts) {
        Arrays.sort(counts);
        return counts[counts.length / 2];
    }

    /**
     * The probe before this one at the same limit judges it together with this one: at the
     * operating point, where the limit holds, a decision on one small window of a jittery
     * downstream would be mostly luck. Unless the two differ beyond their sampling noise: then
     * the downstream changed, and the newer probe alone says how.
     */
    private long[] pooled(RttHistory level, long[] fresh) {
        if (level.isEmpty()) {
            return fresh;
        }
        long[] sortedFresh = RttHistory.sortedCopy(fresh);
        long[] sortedLevel = level.sorted();
        double freshRtt = RttHistory.quantileOfSorted(sortedFresh, baseRttQuantile);
        double levelRtt = RttHistory.quantileOfSorted(sortedLevel, baseRttQuantile);
        if (Math.abs(Math.log(freshRtt / levelRtt)) > Z * standardError(sortedFresh, sortedLevel)) {
            return fresh;
        }
        return level.plus(fresh).toArray();
    }

    /**
     * A baseline that a probe is surely faster than is stale (cold connections, a warming JIT, a
     * downstream that got faster): kept in the quantile, it would hold the baseline above the
     * truth for a whole history, and every probe until it aged out would read as "no queue" and
     * grow the limit. The probe window starts the history afresh.
     */
    private static RttHistory restart(RttHistory stale, long[] window) {
        return RttHistory.empty(stale.capacity()).plus(window);
    }

    /**
     * The standard error of the log ratio of two quantiles: each quantile's relative error is
     * about 1.5 times the sample's relative spread over the square root of its size (for
     * uniform jitter, 1.59; for normal, 1.32); the spread is read from the interquartile range,
     * so that the slow tail does not count as noise.
     */
    private static double standardError(long[] sortedWindow, long[] sortedHistory) {
        double w = relativeSpread(sortedWindow);
        double h = relativeSpread(sortedHistory);
        return 1.5 * Math.sqrt(w * w / sortedWindow.length + h * h / sortedHistory.length);
    }

    private static double relativeSpread(long[] sorted) {
        double median = RttHistory.quantileOfSorted(sorted, 0.5);
        return median > 0 ? Samples.interquartileRange(sorted) / 1.35 / median : 0;
    }

    @Override
    public String toString() {
        return "Vegas[initialLimit=" + initialLimit() + ", minLimit=" + minLimit() + ", maxLimit=" + maxLimit()
                + ", alpha=" + alpha + ", beta=" + beta + ", alphaShare=" + alphaShare + ", betaShare=" + betaShare
                + ", decreaseFactor=" + decreaseFactor + ", dropTolerance=" + dropTolerance()
                + ", probeWindow=" + probeWindow + ", slowStartFactor=" + slowStartFactor
                + ", baseRttWindow=" + baseRttWindow + ", baseRttQuantile=" + baseRttQuantile + "]";
    }

    /**
     * The state of a {@link Vegas} limit between two samples. Immutable; folding a sample
     * allocates the next state and one small node, and the RTT history is rebuilt once per
     * probe window at most. The RTT fields are in nanoseconds and are 0 until the first probe
     * window completes.
     *
     * @param limit             the current limit, within the limit's [min, max]
     * @param history           the success RTTs the baseline is read from (internal)
     * @param probe             the success RTTs of the probe window in progress (internal)
     * @param below             the success RTTs, with their in flight, of attempts admitted since
     *                          the window opened at fewer in flight than the limit (internal):
     *                          they cannot show room above the limit, but a queue at a lower
     *                          concurrency shows there is none
     * @param level             the RTTs of the last probe at the current limit, which the next
     *                          probe is judged together with while the limit holds (internal)
     * @param probeFloor        successes admitted at fewer in flight do not join the probe: the
     *                          limit, except for the first probe, which takes the first answers
     *                          whatever their concurrency (all of them are baseline material)
     * @param queue             the queue estimated by the last probe, in calls
     * @param baseRttNanos      the baseline used by the last probe
     * @param probeRttNanos     the RTT quantile of the last probe window
     * @param lastDecreaseNanos when the last decrease on a failure happened: the end
     *                          ({@code startNanos + rttNanos}) of the sample that caused it;
     *                          failures of attempts that started earlier are ignored
     * @param decreased         whether there was any such decrease; until then
     *                          {@code lastDecreaseNanos} means nothing
     * @param step              the most slots the next probe that finds no queue may add after
     *                          slow start; doubles with each such probe in a row
     * @param wall              what the last burst of rate limits said about the downstream's
     *                          cap (internal): growth returns to the level it held, and passes
     *                          it only one slot at a time, rarely
     * @param proven            the limit of the last probe that ended (without a rate limit in it)
     * @param baseLevel         successes admitted at no more than this many in flight feed the
     *                          baseline; it starts at the initial limit and rises while
     *                          discovering
     * @param discovering       whether slow start goes on: until two probes in a row find a
     *                          queue, or an overload; meanwhile the baseline's level rises
     *                          with the limit at each probe that finds none
     * @param queuedInARow      probes in a row that found a queue of at least alpha'
     * @param windowSet         whether a probe window has been opened by a decision
     * @param windowStartNanos  when the window in progress opened; successes admitted earlier
     *                          are not part of it
     * @param dropRate          the recent and the usual share of failed attempts
     */
    record State(int limit, RttHistory history, RttBatch probe, RttBatch below, RttHistory level,
                        int probeFloor, double queue,
                        double baseRttNanos, double probeRttNanos, long lastDecreaseNanos, boolean decreased,
                        int step, Wall wall, int proven, int baseLevel, boolean discovering, int queuedInARow,
                        boolean windowSet, long windowStartNanos,
                        DropShare dropRate) implements LimitState {

        State withWall(Wall nextWall) {
            return new State(limit, history, probe, below, level, probeFloor, queue, baseRttNanos,
                    probeRttNanos, lastDecreaseNanos, decreased, step, nextWall, proven, baseLevel, discovering,
                    queuedInARow, windowSet, windowStartNanos, dropRate);
        }

        State with(RttBatch nextProbe, DropShare rate) {
            return with(nextProbe, below, rate);
        }

        State with(RttBatch nextProbe, RttBatch nextBelow, DropShare rate) {
            return new State(limit, history, nextProbe, nextBelow, level, probeFloor, queue, baseRttNanos,
                    probeRttNanos, lastDecreaseNanos, decreased, step, wall, proven, baseLevel, discovering,
                    queuedInARow, windowSet, windowStartNanos, rate);
        }

        /**
         * @return queue, baseRtt and probeRtt (milliseconds), limit, step, wall, slowStart (1 or 0)
         *         and dropRate
         */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("queue", queue, "baseRtt", Samples.millis(baseRttNanos),
                    "probeRtt", Samples.millis(probeRttNanos), "limit", (double) limit,
                    "step", (double) step, "wall", (double) wall.refused(), "held", (double) wall.held(),
                    "slowStart", discovering ? 1.0 : 0.0, "dropRate", dropRate.recent());
        }
    }

    /**
     * A mutable builder (the bounds are {@link LimitBuilder}'s); every option is checked by
     * {@link #build()}, which throws {@link IllegalArgumentException} naming the option and the
     * value. Not thread-safe.
     */
    public static final class Builder extends LimitBuilder<Builder> {
        private double alpha = 1;
        private double beta = 2;
        private double alphaShare = 0.1;
        private double betaShare = 0.2;
        private double decreaseFactor = 0.5;
        private int probeWindow = 5;
        private double slowStartFactor = 1.5;
        private int baseRttWindow = 100;
        private double baseRttQuantile = 0.3;

        private Builder() {
        }

        /**
         * @param alpha least queue (calls) below which the limit grows, {@code >= 0}, not 0 together with
         *              {@code alphaShare}; default 1
         * @return this builder
         */
        public Builder alpha(double alpha) {
            this.alpha = alpha;
            return this;
        }

        /**
         * @param beta least queue (calls) above which the limit shrinks, {@code >= alpha}; default 2
         * @return this builder
         */
        public Builder beta(double beta) {
            this.beta = beta;
            return this;
        }

        /**
         * @param alphaShare alpha as a share of the limit, when that is more than {@code alpha};
         *                   0 to 1; default 0.1
         * @return this builder
         */
        public Builder alphaShare(double alphaShare) {
            this.alphaShare = alphaShare;
            return this;
        }

        /**
         * @param betaShare beta as a share of the limit, when that is more than {@code beta};
         *                  {@code alphaShare} to 1; default 0.2
         * @return this builder
         */
        public Builder betaShare(double betaShare) {
            this.betaShare = betaShare;
            return this;
        }

        /**
         * @param decreaseFactor the factor applied on a rate limit or a run of drops, strictly
         *                       between 0 and 1; default 0.5
         * @return this builder
         */
        public Builder decreaseFactor(double decreaseFactor) {
            this.decreaseFactor = decreaseFactor;
            return this;
        }

        /**
         * @param probeWindow least successes per probe, at least 1 (a probe also waits for half
         *                    the limit); default 5
         * @return this builder
         */
        public Builder probeWindow(int probeWindow) {
            this.probeWindow = probeWindow;
            return this;
        }

        /**
         * @param slowStartFactor growth per probe until the queue first reaches alpha, 1 to 4
         *                        (1 turns slow start off); default 1.5
         * @return this builder
         */
        public Builder slowStartFactor(double slowStartFactor) {
            this.slowStartFactor = slowStartFactor;
            return this;
        }

        /**
         * @param baseRttWindow how many success RTTs the baseline is taken from, 1 to 10,000 (each
         *                      accepted probe copies and sorts them); default 100
         * @return this builder
         */
        public Builder baseRttWindow(int baseRttWindow) {
            this.baseRttWindow = baseRttWindow;
            return this;
        }

        /**
         * @param baseRttQuantile which quantile of the RTTs is compared, in the baseline and in
         *                        each probe, 0 (the minimum) to 1; default 0.3
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
