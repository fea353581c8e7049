package dev.adaptive.guard;

import dev.adaptive.internal.OptionChecks;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * How a {@link GuardGradient} re-measures its no-load RTT, after Envoy's adaptive concurrency
 * filter: off unless given to {@link GuardGradient.Builder#recalibration(Recalibration)}.
 *
 * <p>A probe drains the guard to {@link #probeLimit()} calls, collects {@link #probeSamples()}
 * successes of calls admitted after it began, and adopts their median RTT as the baseline,
 * which then holds until the next probe. Calls admitted before the probe ran at the old
 * concurrency: their samples are discarded, and so is that of a call admitted with more than
 * the probe limit in flight if an older call ended while it ran (it ran beside the load the
 * probe drains). The first probe runs at startup; the next one
 * {@link #interval()} later, plus a random part of up to {@link #jitter()} of the interval, so
 * that the nodes of a fleet do not all probe at once; a probe also starts at once after
 * {@link #pinnedWindows()} consecutive windows of {@code rttWindow} samples pinned at the
 * minimum limit by latency, the sign of a stale baseline.
 *
 * <p>Probes are driven by samples (a probe is due when a call ends after its time), not by a
 * timer: a guard with no traffic needs no baseline.
 *
 * <p>In a {@link ConcurrencyGuard} the probe limit bounds the calls admitted since the probe
 * began; those admitted before it drain on their own, so the guard admits up to the probe limit
 * plus the older calls still in flight (at most its limit before the probe), falling to the
 * probe limit as they end. Calls that last (streams, long polls) therefore do not stall a probe:
 * it goes on admitting and measuring beside them, a call that outlives a probe's sample being
 * taken as background load.
 *
 * <p>Defaults: interval 60 s, jitter 0.15, probeLimit = the limit's minLimit, probeSamples 5,
 * pinnedWindows 3, a random seed for the jitter. Immutable and thread-safe.
 */
public final class Recalibration {

    /** Default interval between probes: 60 seconds. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);

    private static final Duration MAX_INTERVAL = Duration.ofDays(365);

    private final Duration interval;
    private final double jitter;
    private final int probeLimit;
    private final int probeSamples;
    private final int pinnedWindows;
    private final long seed;

    private Recalibration(Builder b) {
        this.interval = OptionChecks.positive("interval", b.interval, MAX_INTERVAL);
        this.jitter = OptionChecks.closedUnit("jitter", b.jitter);
        this.probeLimit = b.probeLimitSet ? OptionChecks.atLeast("probeLimit", b.probeLimit, 1) : 0;
        this.probeSamples = OptionChecks.between("probeSamples", b.probeSamples, 1, 1000);
        this.pinnedWindows = OptionChecks.atLeast("pinnedWindows", b.pinnedWindows, 1);
        this.seed = b.seedSet ? b.seed : new SplittableRandom().nextLong();
    }

    /** @return a builder with the defaults; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return recalibration with every default (and its own random seed) */
    public static Recalibration defaults() {
        return builder().build();
    }

    /** @return the time between two probes, before jitter; default 60 s */
    public Duration interval() {
        return interval;
    }

    /** @return the largest part of the interval added at random; default 0.15 */
    public double jitter() {
        return jitter;
    }

    /** @return the concurrency a probe drains to; 0 (the default) means the limit's minLimit */
    public int probeLimit() {
        return probeLimit;
    }

    /** @return the clean samples a probe collects; default 5 */
    public int probeSamples() {
        return probeSamples;
    }

    /** @return consecutive pinned windows that force a probe; default 3 */
    public int pinnedWindows() {
        return pinnedWindows;
    }

    /** @return the seed of the jitter */
    public long seed() {
        return seed;
    }

    /**
     * @param probe the probe's number, from 1
     * @return the wait before that probe, in nanoseconds: the interval plus its jitter, a pure
     *         function of the seed and the number, as a {@link dev.adaptive.limit.Limit} requires
     */
    long delayNanos(long probe) {
        long base = interval.toNanos();
        double u = (mix(seed + probe * 0x9E3779B97F4A7C15L) >>> 11) * 0x1.0p-53;
        return base + (long) (u * jitter * base);
    }

    /** SplitMix64's finaliser: a good spread of nearby inputs. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return "Recalibration[interval=" + interval + ", jitter=" + jitter + ", probeLimit="
                + (probeLimit == 0 ? "minLimit" : probeLimit) + ", probeSamples=" + probeSamples
                + ", pinnedWindows=" + pinnedWindows + "]";
    }

    /**
     * A mutable builder; {@link #build()} throws {@link IllegalArgumentException} naming the
     * option and the value. Not thread-safe.
     */
    public static final class Builder {
        private Duration interval = DEFAULT_INTERVAL;
        private double jitter = 0.15;
        private int probeLimit;
        private boolean probeLimitSet;
        private int probeSamples = 5;
        private int pinnedWindows = 3;
        private long seed;
        private boolean seedSet;

        private Builder() {
        }

        /**
         * @param interval time between probes, positive, at most a year; default 60 s
         * @return this builder
         */
        public Builder interval(Duration interval) {
            this.interval = interval;
            return this;
        }

        /**
         * @param jitter largest part of the interval added at random, in [0, 1]; default 0.15
         * @return this builder
         */
        public Builder jitter(double jitter) {
            this.jitter = jitter;
            return this;
        }

        /**
         * @param probeLimit the concurrency a probe drains to, within the limit's [minLimit,
         *                   maxLimit] (checked when the limit is built); default its minLimit
         * @return this builder
         */
        public Builder probeLimit(int probeLimit) {
            this.probeLimit = probeLimit;
            this.probeLimitSet = true;
            return this;
        }

        /**
         * @param probeSamples clean samples per probe, in [1, 1000]; default 5
         * @return this builder
         */
        public Builder probeSamples(int probeSamples) {
            this.probeSamples = probeSamples;
            return this;
        }

        /**
         * @param pinnedWindows consecutive pinned windows that force a probe, at least 1; default 3
         * @return this builder
         */
        public Builder pinnedWindows(int pinnedWindows) {
            this.pinnedWindows = pinnedWindows;
            return this;
        }

        /**
         * @param seed the jitter's seed, for reproducible simulations; default random
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            this.seedSet = true;
            return this;
        }

        /**
         * @return a new immutable {@link Recalibration}
         * @throws IllegalArgumentException naming the first invalid option and its value
         */
        public Recalibration build() {
            return new Recalibration(this);
        }
    }
}
