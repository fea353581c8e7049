package dev.adaptive.guard;

import dev.adaptive.internal.OptionChecks;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Sample;

import java.util.Map;
import java.util.Objects;

/**
 * The limit of a {@link ConcurrencyGuard}: a gradient on the ratio of the no-load RTT to each
 * request's RTT, tuned for a server that sheds its own load.
 *
 * <p>Every success of RTT {@code rtt} (at least 1 microsecond) updates a fractional
 * {@code estimate}:
 * <pre>
 * gradient  = clamp(tolerance * rttNoLoad / rtt, 0.5, 1.0)
 * newLimit  = estimate * gradient + sqrt(estimate)
 * estimate  = estimate * (1 - smoothing) + newLimit * smoothing
 * </pre>
 * {@code rttNoLoad} is the minimum RTT of the last {@code rttWindow} quiet successes: a rolling
 * minimum, so the baseline can rise after a lasting shift in latency. A success is quiet if it
 * was admitted with at most {@code max(minLimit, estimate / 2)} requests in flight; near the
 * limit an RTT includes the queue the baseline is there to detect, and letting it in would let
 * the baseline, and the limit with it, creep up with the queue under sustained overload. After
 * a real shift the baseline catches up only from quiet successes: under traffic that keeps the
 * guard full, the limit settles at {@code 1 / (1 - gradient)^2} (9 for a 3x slower backend with
 * the defaults), every success comes with that many in flight, and only a shift large enough to
 * bring the limit to minLimit (4x with the defaults), where every success is quiet, lets the
 * baseline follow. With {@link Recalibration} on, {@code rttNoLoad} is instead the RTT measured by the last probe,
 * held until the next one. The {@code sqrt(estimate)} term is headroom for queueing that grows
 * slower than the limit.
 *
 * <p>An increase is applied only if the request was admitted with at least half the estimate
 * in flight: a server that is mostly idle proves nothing about its capacity, and a limit grown
 * idle would not shed when a burst comes. A decrease is applied only if the request was
 * admitted after the last decrease: the requests of one round trip were all slowed by the
 * same excess, and cutting once per request would overshoot to the minimum and oscillate.
 *
 * <p>A drop (an error or timeout released as dropped) multiplies the estimate by
 * {@code min(backoffRatio, 1 - smoothing / 2)}, at once and unsmoothed. {@code 1 - smoothing/2}
 * is the factor of the slowest possible success (gradient 0.5) before its {@code sqrt} headroom,
 * so a drop always decreases more than a slow success; with the defaults both are 0.9. A drop
 * of a request admitted before the last drop is ignored: a burst of failures caused by one
 * overload must not halve the limit once per request (a drop after a decrease by latency still
 * counts: the latency said the queue was growing, the drop that the overload already fails).
 *
 * <p>The limit is the floor of the estimate within [minLimit, maxLimit], or the probe limit
 * while a recalibration probe runs. In a {@link ConcurrencyGuard} the probe limit bounds only the
 * requests admitted since the probe began, which the guard counts itself; the limit its limiter
 * enforces on all in flight during a probe is then {@code max(floor(estimate), probeLimit)}, and
 * the requests admitted before the probe drain outside the probe limit. In a plain
 * {@link dev.adaptive.Limiter}, which has no such count, the probe limit bounds every call in
 * flight, those admitted before the probe too.
 *
 * <p>Defaults: minLimit 4, maxLimit 512, initialLimit = minLimit, rttWindow 100, smoothing 0.2,
 * tolerance 2.0, backoffRatio 0.9, recalibration off.
 *
 * <p>Immutable and thread-safe; {@link #update} is a pure function (recalibration reads time
 * only from the samples, and its jitter from a seeded hash).
 */
public final class GuardGradient implements Limit {

    private static final long MIN_RTT_NANOS = 1_000;
    private static final double MIN_GRADIENT = 0.5;
    private static final int MAX_RTT_WINDOW = 100_000;
    private static final GuardGradient DEFAULTS = builder().build();

    private final int initialLimit;
    private final int minLimit;
    private final int maxLimit;
    private final int rttWindow;
    private final double smoothing;
    private final double tolerance;
    private final double backoffRatio;
    private final double dropFactor;
    private final Recalibration recalibration;
    private final int probeLimit;
    private final long pinnedSamplesToProbe;
    // In a ConcurrencyGuard a probe's limit bounds only the requests admitted since it began,
    // which the guard counts; the limiter under it then bounds all in flight by the limit
    // before the probe, so the older requests drain without stalling the probe.
    private final boolean cohortProbes;
    private final State initialState;

    private GuardGradient(Builder b) {
        this.minLimit = OptionChecks.atLeast("minLimit", b.minLimit, 1);
        if (b.maxLimit < minLimit) {
            throw new IllegalArgumentException("maxLimit must be >= minLimit (" + minLimit + "): " + b.maxLimit);
        }
        this.maxLimit = b.maxLimit;
        if (b.initialLimitSet && (b.initialLimit < minLimit || b.initialLimit > maxLimit)) {
            throw new IllegalArgumentException("initialLimit must be within [minLimit, maxLimit] = [" + minLimit
                    + ", " + maxLimit + "]: " + b.initialLimit);
        }
        this.initialLimit = b.initialLimitSet ? b.initialLimit : minLimit;
        this.rttWindow = OptionChecks.between("rttWindow", b.rttWindow, 1, MAX_RTT_WINDOW);
        this.smoothing = OptionChecks.halfOpenUnit("smoothing", b.smoothing);
        // Below 1 a steady server would look slower than its own baseline and only shrink.
        this.tolerance = OptionChecks.atLeast("tolerance", b.tolerance, 1);
        if (!(b.backoffRatio >= 0.5 && b.backoffRatio < 1)) {
            throw new IllegalArgumentException("backoffRatio must be >= 0.5 and < 1: " + b.backoffRatio);
        }
        this.backoffRatio = b.backoffRatio;
        this.dropFactor = Math.min(backoffRatio, 1 - smoothing / 2);
        this.recalibration = b.recalibration;
        if (recalibration != null) {
            int p = recalibration.probeLimit() == 0 ? minLimit : recalibration.probeLimit();
            if (p < minLimit || p > maxLimit) {
                throw new IllegalArgumentException("probeLimit must be within [minLimit, maxLimit] = [" + minLimit
                        + ", " + maxLimit + "]: " + p);
            }
            this.probeLimit = p;
            this.pinnedSamplesToProbe = (long) recalibration.pinnedWindows() * rttWindow;
        } else {
            this.probeLimit = 0;
            this.pinnedSamplesToProbe = 0;
        }
        this.cohortProbes = false;
        this.initialState = firstState();
    }

    private GuardGradient(GuardGradient g, boolean cohortProbes) {
        this.initialLimit = g.initialLimit;
        this.minLimit = g.minLimit;
        this.maxLimit = g.maxLimit;
        this.rttWindow = g.rttWindow;
        this.smoothing = g.smoothing;
        this.tolerance = g.tolerance;
        this.backoffRatio = g.backoffRatio;
        this.dropFactor = g.dropFactor;
        this.recalibration = g.recalibration;
        this.probeLimit = g.probeLimit;
        this.pinnedSamplesToProbe = g.pinnedSamplesToProbe;
        this.cohortProbes = cohortProbes;
        this.initialState = firstState();
    }

    private State firstState() {
        if (recalibration != null) {
            return new State(initialLimit, probingLimit(initialLimit), 0, 0, 1.0, null, Probe.atStartup(), 0, false,
                    0, 0, 0, false, 0, false);
        }
        return new State(initialLimit, initialLimit, 0, 0, 1.0, RollingMin.empty(rttWindow), null,
                0, false, 0, 0, 0, false, 0, false);
    }

    /**
     * The same limit, for the limiter under a {@link ConcurrencyGuard}: the guard holds the
     * requests admitted since a probe began to {@link #probeLimit()} itself, so the limit a
     * probe's state gives the limiter bounds all in flight by {@code max(floor(estimate),
     * probeLimit)} instead, and the requests admitted before the probe drain outside the probe's
     * limit.
     *
     * @return a copy whose probes bound only the requests admitted since they began
     */
    GuardGradient withCohortProbes() {
        return new GuardGradient(this, true);
    }

    /** The limit of a state while a probe runs, the estimate being kept through it. */
    private int probingLimit(double estimate) {
        return cohortProbes ? Math.max(floor(estimate), probeLimit) : probeLimit;
    }

    /** @return a builder with the defaults listed on {@link GuardGradient}; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the shared instance with every default (recalibration off) */
    public static GuardGradient defaults() {
        return DEFAULTS;
    }

    /** @return the limit before any sample; default minLimit */
    @Override
    public int initialLimit() {
        return initialLimit;
    }

    /** @return the smallest limit; default 4 */
    @Override
    public int minLimit() {
        return minLimit;
    }

    /** @return the largest limit; default 512 */
    @Override
    public int maxLimit() {
        return maxLimit;
    }

    /** @return successes over which rttNoLoad is the minimum; default 100 */
    public int rttWindow() {
        return rttWindow;
    }

    /** @return the weight of each new limit in the estimate; default 0.2 */
    public double smoothing() {
        return smoothing;
    }

    /** @return how much slower than rttNoLoad a request may be before the limit shrinks; default 2.0 */
    public double tolerance() {
        return tolerance;
    }

    /** @return the factor a drop applies, in [0.5, 1); default 0.9 */
    public double backoffRatio() {
        return backoffRatio;
    }

    /** @return the recalibration, or {@code null} when off (the default) */
    public Recalibration recalibration() {
        return recalibration;
    }

    /** @return the concurrency of a recalibration probe, or 0 when recalibration is off */
    public int probeLimit() {
        return probeLimit;
    }

    /** @return {@code "guard-gradient"} */
    @Override
    public String name() {
        return "guard-gradient";
    }

    @Override
    public State initialState() {
        return initialState;
    }

    /**
     * @throws IllegalArgumentException if {@code state} was not made by a {@code GuardGradient}
     */
    @Override
    public State update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State s)) {
            throw new IllegalArgumentException("not a GuardGradient state: " + state);
        }
        long end = sample.startNanos() + sample.rttNanos();
        if (s.probe != null) {
            return probeStep(s, sample, end);
        }
        State next = fold(s, sample, end);
        if (recalibration == null) {
            return next;
        }
        boolean due = next.probeScheduled && end - next.nextProbeNanos >= 0;
        boolean stale = next.pinnedSamples >= pinnedSamplesToProbe;
        if (!due && !stale) {
            return next;
        }
        return new State(next.estimate, probingLimit(next.estimate), next.rttNoLoadNanos, next.lastRttNanos,
                next.gradient, null, Probe.startingAt(end), next.nextProbeNanos, false, next.probes, 0,
                next.lastDropNanos, next.dropped, next.lastDecreaseNanos, next.decreased);
    }

    private State fold(State s, Sample sample, long end) {
        if (sample.isCongestion()) {
            if (s.dropped && sample.startNanos() - s.lastDropNanos < 0) {
                return s;
            }
            double estimate = clamp(s.estimate * dropFactor);
            return new State(estimate, floor(estimate), s.rttNoLoadNanos, s.lastRttNanos, s.gradient, s.window,
                    null, s.nextProbeNanos, s.probeScheduled, s.probes, s.pinnedSamples, end, true, end, true);
        }
        if (!sample.isSuccess()) {
            return s;
        }
        long rtt = Math.max(sample.rttNanos(), MIN_RTT_NANOS);
        RollingMin window = s.window;
        long noLoad;
        if (window != null) {
            // Near the limit an RTT includes the queue the baseline is there to detect: let those
            // in and the baseline creeps up with the queue, and the limit with it, to maxLimit.
            if (window.isEmpty() || sample.inflight() <= Math.max(minLimit, s.estimate / 2)) {
                window = window.plus(rtt);
            }
            noLoad = window.min();
        } else {
            noLoad = s.rttNoLoadNanos;
        }
        double gradient = Math.max(MIN_GRADIENT, Math.min(1.0, tolerance * noLoad / rtt));
        double estimate = s.estimate;
        double next = estimate * (1 - smoothing) + (estimate * gradient + Math.sqrt(estimate)) * smoothing;
        long lastDecrease = s.lastDecreaseNanos;
        boolean decreased = s.decreased;
        if (next > estimate && sample.inflight() < estimate / 2) {
            next = estimate;
        } else if (next < estimate) {
            if (decreased && sample.startNanos() - lastDecrease < 0) {
                // Admitted before the last decrease, so slowed by the concurrency that decrease
                // already cut: acting on it again would cut once per request of one round trip.
                next = estimate;
            } else {
                lastDecrease = end;
                decreased = true;
            }
        }
        next = clamp(next);
        int limit = floor(next);
        // Pinned: held at the minimum by latency, not by drops or a lack of traffic.
        long pinned = recalibration != null && limit == minLimit && gradient < 1.0 ? s.pinnedSamples + 1 : 0;
        return new State(next, limit, noLoad, rtt, gradient, window, null, s.nextProbeNanos, s.probeScheduled,
                s.probes, pinned, s.lastDropNanos, s.dropped, lastDecrease, decreased);
    }

    private State probeStep(State s, Sample sample, long end) {
        Probe probe = s.probe;
        if (probe.isOlder(sample.startNanos())) {
            // Admitted before the probe, at the old concurrency: not a sample, but its end tells
            // which of the probe's own requests ran beside it.
            Probe seen = probe.olderEnded(end);
            return seen == probe ? s : new State(s.estimate, s.limit, s.rttNoLoadNanos, s.lastRttNanos, s.gradient,
                    null, seen, s.nextProbeNanos, false, s.probes, 0, s.lastDropNanos, s.dropped,
                    s.lastDecreaseNanos, s.decreased);
        }
        if (!sample.isSuccess() || !probe.clean(sample, probeLimit)) {
            return s;
        }
        long rtt = Math.max(sample.rttNanos(), MIN_RTT_NANOS);
        Probe more = probe.plus(rtt);
        if (more.size() < recalibration.probeSamples()) {
            return new State(s.estimate, s.limit, s.rttNoLoadNanos, rtt, s.gradient, null, more, s.nextProbeNanos,
                    false, s.probes, 0, s.lastDropNanos, s.dropped, s.lastDecreaseNanos, s.decreased);
        }
        long probes = s.probes + 1;
        return new State(s.estimate, floor(s.estimate), more.median(), rtt, s.gradient, null, null,
                end + recalibration.delayNanos(probes), true, probes, 0, s.lastDropNanos, s.dropped,
                s.lastDecreaseNanos, s.decreased);
    }

    private double clamp(double estimate) {
        if (!(estimate >= minLimit)) {
            return minLimit;
        }
        return Math.min(maxLimit, estimate);
    }

    private int floor(double estimate) {
        return (int) Math.max(minLimit, Math.min(maxLimit, Math.floor(estimate)));
    }

    @Override
    public String toString() {
        return "GuardGradient[initialLimit=" + initialLimit + ", minLimit=" + minLimit + ", maxLimit=" + maxLimit
                + ", rttWindow=" + rttWindow + ", smoothing=" + smoothing + ", tolerance=" + tolerance
                + ", backoffRatio=" + backoffRatio + ", recalibration=" + recalibration + "]";
    }

    /**
     * The state of a {@link GuardGradient} between two samples. Immutable; RTTs in nanoseconds,
     * 0 until known.
     */
    public static final class State implements LimitState {
        private final double estimate;
        private final int limit;
        private final long rttNoLoadNanos;
        private final long lastRttNanos;
        private final double gradient;
        private final RollingMin window;
        private final Probe probe;
        private final long nextProbeNanos;
        private final boolean probeScheduled;
        private final long probes;
        private final long pinnedSamples;
        private final long lastDropNanos;
        private final boolean dropped;
        private final long lastDecreaseNanos;
        private final boolean decreased;

        State(double estimate, int limit, long rttNoLoadNanos, long lastRttNanos, double gradient, RollingMin window,
              Probe probe, long nextProbeNanos, boolean probeScheduled, long probes, long pinnedSamples,
              long lastDropNanos, boolean dropped, long lastDecreaseNanos, boolean decreased) {
            this.estimate = estimate;
            this.limit = limit;
            this.rttNoLoadNanos = rttNoLoadNanos;
            this.lastRttNanos = lastRttNanos;
            this.gradient = gradient;
            this.window = window;
            this.probe = probe;
            this.nextProbeNanos = nextProbeNanos;
            this.probeScheduled = probeScheduled;
            this.probes = probes;
            this.pinnedSamples = pinnedSamples;
            this.lastDropNanos = lastDropNanos;
            this.dropped = dropped;
            this.lastDecreaseNanos = lastDecreaseNanos;
            this.decreased = decreased;
        }

        /**
         * @return the limit enforced now on all in flight: the floor of the estimate; while
         *         probing, the probe limit, or in a {@link ConcurrencyGuard}'s limiter
         *         {@code max(floor(estimate), probeLimit)} (the guard holds the probe's own
         *         requests to the probe limit)
         */
        @Override
        public int limit() {
            return limit;
        }

        /** @return the fractional limit the gradient moves (kept through a probe) */
        public double estimate() {
            return estimate;
        }

        /** @return the no-load RTT the gradient compares with, in nanoseconds; 0 until known */
        public long rttNoLoadNanos() {
            return rttNoLoadNanos;
        }

        /** @return the RTT of the last success folded or probed, in nanoseconds; 0 until one */
        public long lastRttNanos() {
            return lastRttNanos;
        }

        /** @return the gradient of the last success folded; 1 before any */
        public double gradient() {
            return gradient;
        }

        /** @return whether a recalibration probe is running */
        public boolean probing() {
            return probe != null;
        }

        /** @return the probes completed so far */
        public long probes() {
            return probes;
        }

        /** @return the ticker reading after which the next probe starts; meaningful once a probe completed */
        public long nextProbeNanos() {
            return nextProbeNanos;
        }

        /** @return consecutive successes pinned at the minimum limit by latency (recalibration only) */
        public long pinnedSamples() {
            return pinnedSamples;
        }

        /** @return limit, estimate, gradient, probing (0 or 1), rttNoLoad and lastRtt in milliseconds */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("limit", (double) limit, "estimate", estimate, "gradient", gradient,
                    "probing", probe == null ? 0.0 : 1.0, "rttNoLoad", rttNoLoadNanos / 1e6,
                    "lastRtt", lastRttNanos / 1e6);
        }

        @Override
        public String toString() {
            return "GuardGradient.State[limit=" + limit + ", estimate=" + estimate + ", rttNoLoad=" + rttNoLoadNanos
                    + "ns, lastRtt=" + lastRttNanos + "ns, gradient=" + gradient + ", probe=" + probe
                    + ", probes=" + probes + ", pinned=" + pinnedSamples + "]";
        }
    }

    /**
     * A mutable builder; {@link #build()} throws {@link IllegalArgumentException} naming the
     * first invalid option and its value. Not thread-safe.
     */
    public static final class Builder {
        private int initialLimit;
        private boolean initialLimitSet;
        private int minLimit = 4;
        private int maxLimit = 512;
        private int rttWindow = 100;
        private double smoothing = 0.2;
        private double tolerance = 2.0;
        private double backoffRatio = 0.9;
        private Recalibration recalibration;

        private Builder() {
        }

        /**
         * @param initialLimit the limit before any sample, within [minLimit, maxLimit]; default minLimit
         * @return this builder
         */
        public Builder initialLimit(int initialLimit) {
            this.initialLimit = initialLimit;
            this.initialLimitSet = true;
            return this;
        }

        /**
         * @param minLimit the smallest limit, at least 1; default 4
         * @return this builder
         */
        public Builder minLimit(int minLimit) {
            this.minLimit = minLimit;
            return this;
        }

        /**
         * @param maxLimit the largest limit, at least minLimit; default 512
         * @return this builder
         */
        public Builder maxLimit(int maxLimit) {
            this.maxLimit = maxLimit;
            return this;
        }

        /**
         * @param rttWindow successes over which rttNoLoad is the minimum, in [1, 100000]; default 100
         * @return this builder
         */
        public Builder rttWindow(int rttWindow) {
            this.rttWindow = rttWindow;
            return this;
        }

        /**
         * @param smoothing weight of each new limit, greater than 0 and at most 1; default 0.2
         * @return this builder
         */
        public Builder smoothing(double smoothing) {
            this.smoothing = smoothing;
            return this;
        }

        /**
         * @param tolerance RTT ratio tolerated before shrinking, at least 1; default 2.0
         * @return this builder
         */
        public Builder tolerance(double tolerance) {
            this.tolerance = tolerance;
            return this;
        }

        /**
         * @param backoffRatio factor a drop applies, in [0.5, 1); default 0.9
         * @return this builder
         */
        public Builder backoffRatio(double backoffRatio) {
            this.backoffRatio = backoffRatio;
            return this;
        }

        /**
         * @param recalibration probes of the no-load RTT, or {@code null} for none (the default)
         * @return this builder
         */
        public Builder recalibration(Recalibration recalibration) {
            this.recalibration = recalibration;
            return this;
        }

        /**
         * @return a new immutable {@link GuardGradient}
         * @throws IllegalArgumentException naming the first invalid option and its value
         */
        public GuardGradient build() {
            return new GuardGradient(this);
        }
    }
}
