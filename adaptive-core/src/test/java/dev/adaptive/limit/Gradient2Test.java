package dev.adaptive.limit;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class Gradient2Test extends AdaptiveLimitContract {

    @Override
    Limit limit(int min, int initial, int max) {
        return Gradient2.builder().minLimit(min).initialLimit(initial).maxLimit(max).build();
    }

    @Override
    Limit limitWithDefaultInitial(int min, int max) {
        return Gradient2.builder().minLimit(min).maxLimit(max).build();
    }

    @Override
    String baselineMetric() {
        return "longRtt";
    }

    private static Gradient2.State state(Fold fold) {
        return (Gradient2.State) fold.state();
    }

    @Test
    void defaults() {
        Gradient2 g = Gradient2.defaults();
        assertThat(g.initialLimit()).isEqualTo(5);
        assertThat(g.minLimit()).isEqualTo(1);
        assertThat(g.maxLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(g.smoothing()).isEqualTo(0.15);
        assertThat(g.longWindow()).isEqualTo(600);
        assertThat(g.rttTolerance()).isEqualTo(1.15);
        assertThat(g.decreaseFactor()).isEqualTo(0.5);
        assertThat(g.probeWindow()).isEqualTo(3);
        assertThat(g.queueSize()).isEqualTo(2);
        assertThat(g.dropTolerance()).isEqualTo(0.05);
        assertThat(g.name()).isEqualTo("gradient2");
    }

    /**
     * Out of slow start near 20: two windows slower than the tolerance, which make the median of
     * the last answers slower too (the long average then is 10 ms).
     */
    private static Fold steady() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(20).maxLimit(1_000).build()).successes(3, 10);
        assertThat(state(fold).slowStart()).isTrue();
        fold.successes(3, 12);
        assertThat(state(fold).slowStart()).isTrue();
        fold.successes(3, 12);
        assertThat(state(fold).slowStart()).isFalse();
        assertThat(state(fold).longRttNanos()).isEqualTo(Fold.nanos(10));
        return fold;
    }

    @Test
    void slowStartAddsAQuarterSlotPerSuccessUntilTheRecentAnswersAreSlowerThanTheTolerance() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(10).build());
        fold.successes(2, 10);
        assertThat(state(fold).estimate()).isEqualTo(10.0);
        fold.success(10);
        assertThat(state(fold).estimate()).isCloseTo(10.75, within(1e-9));
        fold.successes(3, 10);
        assertThat(state(fold).estimate()).isCloseTo(11.5, within(1e-9));
        assertThat(fold.state().metrics()).containsOnlyKeys("shortRtt", "longRtt", "gradient", "limit", "wall",
                "held", "dropRate", "slowStart", "noise");
        assertThat(fold.metric("gradient")).isEqualTo(1.0);
        // 11.4 ms is within the tolerance of 10: still slow start; a run of 13 is not.
        fold.successes(3, 11.4);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        fold.successes(12, 13);
        assertThat(fold.metric("slowStart")).isZero();
    }

    @Test
    void oneSlowWindowDoesNotEndSlowStartARunOfThemDoes() {
        // Regression: with 30% jitter one window of three answers in six reads 15% slow with no
        // load at all; slow start ended at the first or second window in every run, 5 to 10 where
        // the knee was at 24 or 64, and the ramp took the rest of the job.
        Fold fold = new Fold(Gradient2.builder().initialLimit(10).build()).successes(9, 10);
        double before = state(fold).estimate();
        fold.successes(3, 13);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        assertThat(state(fold).estimate()).isCloseTo(before + 0.75, within(1e-9));
        fold.successes(3, 13);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        // Now the median of the last four windows' answers is 13: a rise, not noise.
        fold.successes(3, 13);
        assertThat(fold.metric("slowStart")).isZero();
    }

    @Test
    void pastSlowStartGrowthRunsFromQueueSizeAtTheToleranceToSlowStartsPaceAtTheLongAverage() {
        // Regression: past slow start every window within the tolerance added 0.3 slot (x1.1 per
        // round trip): from 10 to a knee at 64 took more than the whole job's time.
        Fold fold = steady();
        double before = state(fold).estimate();
        fold.successes(3, 10);
        assertThat(state(fold).estimate()).isCloseTo(before + 0.75, within(1e-9));
        assertThat(fold.metric("shortRtt")).isCloseTo(10.0, within(1e-9));
        assertThat(fold.metric("longRtt")).isCloseTo(10.0, within(1e-9));
        // Within the tolerance but slower than the long average: less than that, more than 0.3.
        before = state(fold).estimate();
        fold.successes(3, 11);
        assertThat(fold.metric("gradient")).isEqualTo(1.0);
        assertThat(state(fold).estimate() - before).isGreaterThan(0.3).isLessThan(0.75);
    }

    @Test
    void aSlowTailAnswerDoesNotEnterTheLongAverage() {
        // Regression: every answer of a window within the tolerance entered the long average,
        // the slow tail's too: one six-fold answer in a thin average raised it by 40%, and the
        // tail's share of it let the limit drift up past S6's knee into its hard cap.
        Fold fold = steady();
        fold.success(10).success(60).success(10);
        assertThat(state(fold).longRttNanos()).isEqualTo(Fold.nanos(10));
    }

    @Test
    void slowStartResumesWhereLatencyIsStillNormalAtTwiceTheLevelItEndedAt() {
        // Regression: a slow start ended by noise at 5 never came back; latency still normal at
        // twice that level says that the rise was not the downstream's queueing.
        Fold fold = steady();
        int ended = fold.limit();
        while (fold.limit() < 2 * ended) {
            fold.successes(3, 10);
            assertThat(fold.metric("slowStart")).isZero();
        }
        fold.successes(3, 10);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        // Back in slow start: a quarter slot per answer, even from a window slower than the average.
        double before = state(fold).estimate();
        fold.successes(3, 11);
        assertThat(state(fold).estimate()).isCloseTo(before + 0.75, within(1e-9));
        // And its end is judged on the last four windows' answers, as before it ended.
        fold.successes(3, 13);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
    }

    @Test
    void aSlowWindowFollowsTheGradientFormulaWithoutEnteringTheLongAverage() {
        Fold fold = steady();
        double before = state(fold).estimate();
        double longBefore = state(fold).longRttNanos();
        fold.success(15).success(16).success(14);
        Gradient2.State s = state(fold);
        double expectedGradient = 1.15 * longBefore / Fold.nanos(15);
        assertThat(s.longRttNanos()).isEqualTo(longBefore);
        assertThat(s.shortRttNanos()).isEqualTo(Fold.nanos(15));
        assertThat(s.gradient()).isCloseTo(expectedGradient, within(1e-9)).isLessThan(1.0);
        double newLimit = before * expectedGradient + 2;
        assertThat(s.estimate()).isCloseTo(before * 0.85 + newLimit * 0.15, within(1e-6)).isLessThan(before);
    }

    @Test
    void theLongAverageDoesNotFollowTheClientsOwnQueueing() {
        // A knee: each slot past 20 adds 4% of latency. Fed with every answer, the long average
        // followed the client up the knee and the limit with it, into the hard cap beyond.
        Fold fold = steady();
        int highest = 0;
        for (int i = 0; i < 5_000; i++) {
            double over = Math.max(0, fold.limit() - 20) / 20.0;
            fold.success(10 * (1 + 0.8 * over));
            highest = Math.max(highest, fold.limit());
        }
        assertThat(state(fold).longRttNanos()).isLessThan(Fold.nanos(13));
        assertThat(highest).isLessThan(35);
    }

    @Test
    void wideJitterWithNoQueueDoesNotPullTheLongAverageDownNorTheLimitWithIt() {
        // Answers spread evenly over 10 ms +-48% whatever the load: no queue anywhere. Kept to the
        // tolerance alone, the long average took every fast window and only the fastest of the
        // slow half (7.97 ms here), windows with no queue read as slow, and the limit fell from
        // 20 to 16. Windows within a standard error of the average count as normal latency too.
        Random random = new Random(7);
        Fold fold = new Fold(Gradient2.builder().initialLimit(20).maxLimit(1_000).build());
        int lowest = Integer.MAX_VALUE;
        for (int i = 0; i < 3_000; i++) {
            fold.success(10 * (1 + 0.48 * (2 * random.nextDouble() - 1)));
            if (i >= 600) {
                lowest = Math.min(lowest, fold.limit());
            }
        }
        assertThat(state(fold).longRttNanos()).isGreaterThan(Fold.nanos(8.5));
        assertThat(lowest).isGreaterThanOrEqualTo(20);
    }

    @Test
    void oneSlowAnswerInAWindowIsNotCongestion() {
        Fold fold = steady();
        double before = state(fold).estimate();
        fold.success(10).success(60).success(10);
        assertThat(state(fold).estimate()).isGreaterThan(before);
    }

    @Test
    void theGradientNeverFallsBelowOneHalf() {
        Fold fold = steady().successes(3, 1_000);
        assertThat(fold.metric("gradient")).isEqualTo(0.5);
    }

    @Test
    void anIsolatedDropDoesNotHalveTheLimitARunOfThemDoes() {
        // Regression: every transient 500 halved the limit; at 1% of them (S4) it stayed near 10
        // while the knee was at 64.
        Fold fold = steady();
        for (int i = 0; i < 10; i++) {
            double before = state(fold).estimate();
            fold.drop(10);
            assertThat(state(fold).estimate()).isEqualTo(before);
            fold.successes(60, 10);
        }
        Fold run = steady();
        double before = state(run).estimate();
        run.drop(10).drop(10).drop(10).drop(10).drop(10);
        assertThat(state(run).estimate()).isEqualTo(before * 0.5);
        assertThat(state(run).window().count()).isZero();
    }

    @Test
    void answersAdmittedBeforeTheLastDecreaseDoNotJudgeTheNewLimit() {
        Fold fold = steady();
        long before = fold.now();
        fold.rateLimited(2);
        double halved = state(fold).estimate();
        for (int i = 0; i < 30; i++) {
            fold.apply(new Sample(before + i, Fold.nanos(40), 20, Outcome.SUCCESS));
        }
        assertThat(state(fold).estimate()).isEqualTo(halved);
    }

    @Test
    void afterKRefusalsWithNInFlightGrowthReturnsToNMinusKAndStaysThere() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(40).maxLimit(1_000).build());
        long start = fold.now();
        for (int i = 0; i < 6; i++) {
            fold.apply(new Sample(start, Fold.nanos(2) + i, 40, Outcome.rateLimited(Duration.ofSeconds(1))));
        }
        fold.advance(3);
        assertThat(fold.metric("held")).isEqualTo(34.0);
        for (int i = 0; i < 3_000; i++) {
            fold.success(10);
            assertThat(fold.limit()).isLessThanOrEqualTo(34);
        }
        assertThat(fold.limit()).isEqualTo(34);
    }

    @Test
    void aLongRttFarAboveTheShortOneIsPulledDown() {
        Fold fold = new Fold(Gradient2.defaults()).successes(300, 100);
        double inflated = state(fold).longRttNanos();
        fold.successes(3, 10);
        assertThat(state(fold).longRttNanos()).isLessThan(inflated * 0.96);
    }

    @Test
    void theLongAverageStartsAsAPlainMean() {
        Fold fold = new Fold(Gradient2.defaults()).success(10).success(20).success(30);
        assertThat(state(fold).longRttNanos()).isCloseTo(Fold.nanos(20), within(1e-3));
    }

    @Test
    void theEstimateStaysWithinBoundsSoDecreasesBiteAtOnce() {
        Fold fold = new Fold(Gradient2.builder().maxLimit(20).build()).successes(3_000, 10);
        assertThat(state(fold).estimate()).isEqualTo(20.0);
        fold.rateLimited(10);
        assertThat(fold.limit()).isEqualTo(10);
    }

    static Stream<Arguments> badOptions() {
        return Stream.of(
                bad("smoothing", "0.0", () -> Gradient2.builder().smoothing(0).build()),
                bad("smoothing", "1.1", () -> Gradient2.builder().smoothing(1.1).build()),
                bad("longWindow", "0", () -> Gradient2.builder().longWindow(0).build()),
                bad("rttTolerance", "0.9", () -> Gradient2.builder().rttTolerance(0.9).build()),
                bad("rttTolerance", "Infinity", () -> Gradient2.builder().rttTolerance(Double.POSITIVE_INFINITY).build()),
                bad("decreaseFactor", "1.0", () -> Gradient2.builder().decreaseFactor(1).build()),
                bad("decreaseFactor", "NaN", () -> Gradient2.builder().decreaseFactor(Double.NaN).build()),
                bad("probeWindow", "0", () -> Gradient2.builder().probeWindow(0).build()),
                bad("queueSize", "-1", () -> Gradient2.builder().queueSize(-1).build()),
                bad("dropTolerance", "-0.1", () -> Gradient2.builder().dropTolerance(-0.1).build()));
    }

    static Arguments bad(String option, String value, ThrowingCallable build) {
        return arguments(option, value, build);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badOptions")
    void badOptionsFailAtBuild(String option, String value, ThrowingCallable build) {
        assertThatThrownBy(build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(option + " must").hasMessageEndingWith(": " + value);
    }

    @Test
    void extremeButValidOptionsWork() {
        Gradient2 g = Gradient2.builder().smoothing(1).longWindow(1).rttTolerance(1).probeWindow(1).queueSize(0).build();
        Fold fold = new Fold(g).successes(100, 10).drop(1).successes(100, 20);
        assertThat(fold.limit()).isBetween(1, Integer.MAX_VALUE);
    }
}
