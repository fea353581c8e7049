package dev.adaptive.limit;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
        assertThat(g.name()).isEqualTo("gradient2");
    }

    @Test
    void aFlatWindowAddsQueueSizeTimesSmoothing() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(10).build());
        fold.successes(2, 10);
        assertThat(state(fold).estimate()).isEqualTo(10.0);
        fold.success(10);
        assertThat(state(fold).estimate()).isCloseTo(10.3, within(1e-9));
        assertThat(fold.limit()).isEqualTo(10);
        assertThat(fold.state().metrics()).containsOnlyKeys("shortRtt", "longRtt", "gradient", "limit");
        assertThat(fold.metric("gradient")).isEqualTo(1.0);
        assertThat(fold.metric("shortRtt")).isCloseTo(10.0, within(1e-9));
        assertThat(fold.metric("longRtt")).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void aSlowWindowFollowsTheGradientFormula() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(20).maxLimit(20).build()).successes(30, 10);
        double before = state(fold).estimate();
        double longBefore = state(fold).longRttNanos();
        fold.successes(3, 15);
        Gradient2.State s = state(fold);
        double expectedGradient = 1.15 * s.longRttNanos() / Fold.nanos(15);
        assertThat(s.longRttNanos()).isGreaterThan(longBefore);
        assertThat(s.gradient()).isCloseTo(expectedGradient, within(1e-9)).isLessThan(1.0);
        double newLimit = before * expectedGradient + 2;
        assertThat(s.estimate()).isCloseTo(before * 0.85 + newLimit * 0.15, within(1e-6)).isLessThan(before);
    }

    @Test
    void theGradientNeverFallsBelowOneHalf() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(20).build()).successes(30, 10).successes(3, 1_000);
        assertThat(fold.metric("gradient")).isEqualTo(0.5);
    }

    @Test
    void dropsHalveTheFractionalEstimate() {
        Fold fold = new Fold(Gradient2.builder().initialLimit(21).build()).successes(2, 10).drop(10);
        assertThat(state(fold).estimate()).isEqualTo(10.5);
        assertThat(fold.limit()).isEqualTo(10);
        assertThat(state(fold).shortRttCount()).isZero();
    }

    @Test
    void aLongRttFarAboveTheShortOneIsPulledDown() {
        Fold fold = new Fold(Gradient2.defaults()).successes(300, 100);
        double inflated = state(fold).longRttNanos();
        fold.successes(3, 10);
        double ewmaOnly = inflated + (2.0 / 601) * 3 * (Fold.nanos(10) - inflated); // roughly, three EWMA steps
        assertThat(state(fold).longRttNanos()).isLessThan(ewmaOnly * 0.96);
    }

    @Test
    void theLongAverageStartsAsAPlainMean() {
        Fold fold = new Fold(Gradient2.defaults()).success(10).success(20);
        assertThat(state(fold).longRttNanos()).isCloseTo(Fold.nanos(15), within(1e-3));
    }

    @Test
    void theEstimateStaysWithinBoundsSoDecreasesBiteAtOnce() {
        Fold fold = new Fold(Gradient2.builder().maxLimit(20).build()).successes(3_000, 10);
        assertThat(state(fold).estimate()).isEqualTo(20.0);
        fold.drop(10);
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
                bad("queueSize", "-1", () -> Gradient2.builder().queueSize(-1).build()));
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
