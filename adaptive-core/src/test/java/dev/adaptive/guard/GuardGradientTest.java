package dev.adaptive.guard;

import dev.adaptive.limit.Outcome;
import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Sample;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class GuardGradientTest {

    private static final long MS = 1_000_000;

    private static Sample success(long startMs, long rttMs, int inflight) {
        return new Sample(startMs * MS, rttMs * MS, inflight, Outcome.SUCCESS);
    }

    private static Sample drop(long startMs, long rttMs, int inflight) {
        return new Sample(startMs * MS, rttMs * MS, inflight, Outcome.DROPPED);
    }

    @Test
    void defaultsAreThoseOfAServerSideGuard() {
        GuardGradient g = GuardGradient.defaults();
        assertThat(g.minLimit()).isEqualTo(4);
        assertThat(g.maxLimit()).isEqualTo(512);
        assertThat(g.initialLimit()).isEqualTo(4);
        assertThat(g.rttWindow()).isEqualTo(100);
        assertThat(g.smoothing()).isEqualTo(0.2);
        assertThat(g.tolerance()).isEqualTo(2.0);
        assertThat(g.backoffRatio()).isEqualTo(0.9);
        assertThat(g.recalibration()).isNull();
        assertThat(g.probeLimit()).isZero();
        assertThat(g.name()).isEqualTo("guard-gradient");
        assertThat(g.initialState().limit()).isEqualTo(4);
        assertThat(GuardGradient.builder().minLimit(10).build().initialLimit()).isEqualTo(10);
        Recalibration r = Recalibration.defaults();
        assertThat(r.interval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(r.jitter()).isEqualTo(0.15);
        assertThat(r.probeLimit()).isZero();
        assertThat(r.probeSamples()).isEqualTo(5);
        assertThat(r.pinnedWindows()).isEqualTo(3);
        assertThat(GuardGradient.builder().recalibration(r).build().probeLimit()).isEqualTo(4);
    }

    @Test
    void followsTheGradientFormulaStepByStep() {
        GuardGradient g = GuardGradient.builder().initialLimit(100).build();
        GuardGradient.State s = g.initialState();
        // rttNoLoad = 10 ms, gradient = clamp(2 * 10 / 10) = 1: 100 * 0.8 + (100 + sqrt 100) * 0.2 = 102
        s = g.update(s, success(0, 10, 100));
        assertThat(s.estimate()).isCloseTo(102, within(1e-9));
        assertThat(s.gradient()).isEqualTo(1.0);
        assertThat(s.limit()).isEqualTo(102);
        // 25 ms against 10 ms: gradient 0.8; 102 * 0.8 + (102 * 0.8 + sqrt 102) * 0.2
        s = g.update(s, success(5, 25, 100));
        assertThat(s.gradient()).isCloseTo(0.8, within(1e-12));
        assertThat(s.estimate()).isCloseTo(102 * 0.8 + (102 * 0.8 + Math.sqrt(102)) * 0.2, within(1e-9));
        assertThat(s.rttNoLoadNanos()).isEqualTo(10 * MS);
        assertThat(s.lastRttNanos()).isEqualTo(25 * MS);
        assertThat(s.metrics()).containsEntry("rttNoLoad", 10.0).containsEntry("lastRtt", 25.0)
                .containsEntry("probing", 0.0);
    }

    @Test
    void theGradientIsClampedToOneHalf() {
        GuardGradient g = GuardGradient.builder().initialLimit(100).build();
        GuardGradient.State s = g.update(g.initialState(), success(0, 10, 100));
        double before = s.estimate();
        s = g.update(s, success(20, 10_000, 100));
        assertThat(s.gradient()).isEqualTo(0.5);
        assertThat(s.estimate()).isCloseTo(before * 0.8 + (before * 0.5 + Math.sqrt(before)) * 0.2, within(1e-9));
    }

    @Test
    void aDropIsImmediateUnsmoothedAndCountsOncePerRoundTrip() {
        GuardGradient g = GuardGradient.builder().initialLimit(100).build();
        GuardGradient.State s = g.update(g.initialState(), drop(0, 50, 100));
        assertThat(s.estimate()).isCloseTo(90, within(1e-9));
        // Admitted at 10 ms, before the decrease at 50 ms: the same overload, not a new one.
        s = g.update(s, drop(10, 60, 100));
        assertThat(s.estimate()).isCloseTo(90, within(1e-9));
        s = g.update(s, drop(51, 10, 90));
        assertThat(s.estimate()).isCloseTo(81, within(1e-9));
    }

    @Test
    void aSlowSuccessAdmittedBeforeTheLastDecreaseDoesNotCutAgain() {
        GuardGradient g = GuardGradient.builder().initialLimit(100).build();
        GuardGradient.State s = g.update(g.initialState(), success(0, 10, 100));
        s = g.update(s, success(10, 100, 100));
        double afterFirstCut = s.estimate();
        assertThat(afterFirstCut).isLessThan(102);
        s = g.update(s, success(50, 100, 100)); // admitted at 50 ms, before that cut at 110 ms
        assertThat(s.estimate()).isEqualTo(afterFirstCut);
        s = g.update(s, success(120, 100, 90));
        assertThat(s.estimate()).isLessThan(afterFirstCut);
    }

    record Tuning(int initial, double smoothing, double backoffRatio) {
    }

    @Test
    void aDropAlwaysDecreasesMoreThanTheSlowestSuccess() {
        // Decimals with two places, as the ranges were drawn before.
        Gen<Tuning> tunings = Gen.zip(Gen.ints(5, 500), Gen.decimals(0.01, 1, 2), Gen.decimals(0.5, 0.99, 2),
                Tuning::new);
        Property.forAll(500, tunings, t -> {
            GuardGradient g = GuardGradient.builder().minLimit(1).maxLimit(1000).initialLimit(t.initial())
                    .smoothing(t.smoothing()).backoffRatio(t.backoffRatio()).build();
            GuardGradient.State base = g.update(g.initialState(), success(0, 1, t.initial()));
            double slow = g.update(base, success(10, 1_000_000, t.initial())).estimate();
            double dropped = g.update(base, drop(10, 1_000_000, t.initial())).estimate();
            assertThat(dropped).isLessThan(slow);
            assertThat(slow).isLessThanOrEqualTo(base.estimate());
        });
    }

    @Test
    void anIdleServerDoesNotGrowTheLimitButASlowOneStillShrinksIt() {
        GuardGradient g = GuardGradient.builder().initialLimit(40).build();
        GuardGradient.State s = g.update(g.initialState(), success(0, 10, 19));
        assertThat(s.estimate()).isEqualTo(40);
        s = g.update(s, success(5, 10, 20));
        assertThat(s.estimate()).isGreaterThan(40);
        GuardGradient.State slow = g.update(s, success(30, 100, 1));
        assertThat(slow.estimate()).isLessThan(s.estimate());
    }

    @Test
    void theLimitStaysWithinItsBounds() {
        GuardGradient g = GuardGradient.builder().minLimit(4).maxLimit(10).build();
        LimitState s = g.initialState();
        for (int i = 0; i < 200; i++) {
            s = g.update(s, success(i, 10, 10));
            assertThat(s.limit()).isBetween(4, 10);
        }
        assertThat(s.limit()).isEqualTo(10);
        for (int i = 0; i < 200; i++) {
            s = g.update(s, drop(1000 + 100L * i, 50, 10));
            assertThat(s.limit()).isBetween(4, 10);
        }
        assertThat(s.limit()).isEqualTo(4);
    }

    @Test
    void theRollingMinimumOnlyTakesRttsFromQuietMomentsAndForgetsAfterTheWindow() {
        GuardGradient g = GuardGradient.builder().rttWindow(3).build();
        GuardGradient.State s = g.initialState();
        s = g.update(s, success(0, 10, 1));
        assertThat(s.rttNoLoadNanos()).isEqualTo(10 * MS);
        s = g.update(s, success(1, 5, 4)); // 4 in flight at limit 4: minLimit counts as quiet
        assertThat(s.rttNoLoadNanos()).isEqualTo(5 * MS);
        s = g.update(s, success(2, 30, 1));
        s = g.update(s, success(3, 30, 1));
        assertThat(s.rttNoLoadNanos()).isEqualTo(5 * MS);
        s = g.update(s, success(4, 30, 1));
        assertThat(s.rttNoLoadNanos()).isEqualTo(30 * MS);
        GuardGradient wide = GuardGradient.builder().initialLimit(100).build();
        GuardGradient.State w = wide.update(wide.initialState(), success(0, 10, 1));
        w = wide.update(w, success(1, 5, 60)); // 60 in flight of 100: includes queueing, kept out
        assertThat(w.rttNoLoadNanos()).isEqualTo(10 * MS);
    }

    @Test
    void aStateOfAnotherAlgorithmIsRejected() {
        LimitState foreign = dev.adaptive.limit.FixedLimit.of(3).initialState();
        assertThatThrownBy(() -> GuardGradient.defaults().update(foreign, success(0, 1, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not a GuardGradient state");
    }

    @Test
    void badOptionsFailWithTheirNameAndValue() {
        assertThatThrownBy(() -> GuardGradient.builder().minLimit(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("minLimit must be >= 1: 0");
        assertThatThrownBy(() -> GuardGradient.builder().maxLimit(3).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxLimit must be >= minLimit (4): 3");
        assertThatThrownBy(() -> GuardGradient.builder().initialLimit(600).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialLimit must be within [minLimit, maxLimit] = [4, 512]: 600");
        assertThatThrownBy(() -> GuardGradient.builder().rttWindow(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("rttWindow must be within [1, 100000]: 0");
        assertThatThrownBy(() -> GuardGradient.builder().smoothing(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("smoothing must be > 0 and <= 1: 0.0");
        assertThatThrownBy(() -> GuardGradient.builder().smoothing(Double.NaN).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("smoothing must be > 0 and <= 1: NaN");
        assertThatThrownBy(() -> GuardGradient.builder().tolerance(0.9).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("tolerance must be finite and >= 1.0: 0.9");
        assertThatThrownBy(() -> GuardGradient.builder().backoffRatio(0.4).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoffRatio must be >= 0.5 and < 1: 0.4");
        assertThatThrownBy(() -> GuardGradient.builder().backoffRatio(1.0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoffRatio must be >= 0.5 and < 1: 1.0");
        assertThatThrownBy(() -> GuardGradient.builder()
                .recalibration(Recalibration.builder().probeLimit(2).build()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("probeLimit must be within [minLimit, maxLimit] = [4, 512]: 2");
        assertThatThrownBy(() -> Recalibration.builder().probeLimit(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("probeLimit must be >= 1: 0");
        assertThatThrownBy(() -> Recalibration.builder().interval(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be positive and at most PT8760H: PT0S");
        assertThatThrownBy(() -> Recalibration.builder().interval(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("interval must be positive and at most PT8760H: null");
        assertThatThrownBy(() -> Recalibration.builder().jitter(1.5).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("jitter must be >= 0 and <= 1: 1.5");
        assertThatThrownBy(() -> Recalibration.builder().probeSamples(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("probeSamples must be within [1, 1000]: 0");
        assertThatThrownBy(() -> Recalibration.builder().pinnedWindows(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pinnedWindows must be >= 1: 0");
    }

    @Test
    void probeDelaysSpreadOverTheJitterAndDependOnlyOnSeedAndNumber() {
        Recalibration r = Recalibration.builder().seed(42).jitter(0.5).build();
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int probe = 1; probe <= 200; probe++) {
            long d = r.delayNanos(probe);
            assertThat(d).isBetween(Duration.ofSeconds(60).toNanos(), Duration.ofSeconds(90).toNanos());
            assertThat(d).isEqualTo(Recalibration.builder().seed(42).jitter(0.5).build().delayNanos(probe));
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertThat(max - min).isGreaterThan(Duration.ofSeconds(25).toNanos());
        assertThat(Recalibration.builder().seed(43).jitter(0.5).build().delayNanos(1)).isNotEqualTo(r.delayNanos(1));
        assertThat(Recalibration.builder().jitter(0).build().delayNanos(7)).isEqualTo(Duration.ofSeconds(60).toNanos());
    }

    @Test
    void aRecalibratingGuardStartsWithAProbeAndIgnoresFailuresInsideIt() {
        GuardGradient g = GuardGradient.builder().initialLimit(20)
                .recalibration(Recalibration.builder().probeSamples(3).jitter(0).seed(1).build()).build();
        GuardGradient.State s = g.initialState();
        assertThat(s.probing()).isTrue();
        assertThat(s.limit()).isEqualTo(4);
        s = g.update(s, success(0, 12, 1));
        s = g.update(s, drop(0, 1, 1));
        s = g.update(s, success(0, 8, 1));
        assertThat(s.probing()).isTrue();
        s = g.update(s, success(0, 30, 1));
        assertThat(s.probing()).isFalse();
        assertThat(s.rttNoLoadNanos()).isEqualTo(12 * MS); // lower median of 8, 12, 30
        assertThat(s.limit()).isEqualTo(20);
        assertThat(s.nextProbeNanos()).isEqualTo(30 * MS + Duration.ofSeconds(60).toNanos());
    }

    /** A guard that probes often and long enough completes more probes than an int holds. */
    @Test
    void theProbeCountGoesOnPastTheLargestInt() {
        GuardGradient g = GuardGradient.builder().initialLimit(20)
                .recalibration(Recalibration.builder().probeSamples(3).jitter(0).seed(1).build()).build();
        GuardGradient.State s = new GuardGradient.State(20, 4, 10 * MS, 10 * MS, 1.0, null, Probe.atStartup(), 0, false,
                Integer.MAX_VALUE, 0, 0, false, 0, false);
        for (int i = 0; i < 3; i++) {
            s = g.update(s, success(0, 10, 1));
        }
        assertThat(s.probing()).isFalse();
        assertThat(s.probes()).as("probes completed").isEqualTo(Integer.MAX_VALUE + 1L);
    }

    @Test
    void inAGuardAProbeBoundsOnlyItsOwnRequestsAndDiscardsThoseLoadedByOlderOnes() {
        GuardGradient plain = GuardGradient.builder().initialLimit(20)
                .recalibration(Recalibration.builder().probeSamples(3).jitter(0).seed(1).build()).build();
        GuardGradient g = plain.withCohortProbes();
        GuardGradient.State s = g.initialState();
        assertThat(s.probing()).isTrue();
        // The guard holds a probe's own requests to probeLimit (4); the limiter's limit bounds
        // all in flight, the older ones too, by the limit before the probe.
        assertThat(s.limit()).isEqualTo(20);
        for (int i = 0; i < 3; i++) {
            s = g.update(s, success(0, 10, 1));
        }
        assertThat(s.probing()).isFalse();
        assertThat(s.nextProbeNanos()).isEqualTo(10 * MS + Duration.ofSeconds(60).toNanos());
        // Ends at 60.020 s, after the probe's due time: the probe begins then.
        Sample due = success(60_000, 20, 18);
        s = g.update(s, due);
        assertThat(s.probing()).isTrue();
        assertThat(s.limit()).isEqualTo(20);
        assertThat(plain.update(plain.update(plain.update(plain.update(plain.initialState(),
                success(0, 10, 1)), success(0, 10, 1)), success(0, 10, 1)), due).limit()).isEqualTo(4);
        // Admitted before the probe, ends at 60.030 s: not a sample.
        s = g.update(s, success(60_005, 25, 18));
        assertThat(s.lastRttNanos()).isEqualTo(20 * MS);
        // Admitted at 60.025 s with 10 in flight, beside that older one, which ended as it ran:
        // loaded by the concurrency the probe drains. Discarded.
        s = g.update(s, success(60_025, 30, 10));
        assertThat(s.lastRttNanos()).isEqualTo(20 * MS);
        // With at most probeLimit in flight: a sample, whatever else was in flight.
        s = g.update(s, success(60_025, 10, 4));
        assertThat(s.lastRttNanos()).isEqualTo(10 * MS);
        // With 8 in flight, no older one ending while it ran (those still in flight outlive it):
        // a sample, taken beside requests that last.
        s = g.update(s, success(60_031, 11, 8));
        assertThat(s.lastRttNanos()).isEqualTo(11 * MS);
        assertThat(s.probing()).isTrue(); // two samples: the 30 ms one did not count
        s = g.update(s, success(60_040, 12, 6));
        assertThat(s.probing()).isFalse();
        assertThat(s.rttNoLoadNanos()).isEqualTo(11 * MS);
        assertThat(s.limit()).isEqualTo(20);
    }
}
