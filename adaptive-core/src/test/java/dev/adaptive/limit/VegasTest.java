package dev.adaptive.limit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class VegasTest extends AdaptiveLimitContract {

    @Override
    Limit limit(int min, int initial, int max) {
        return Vegas.builder().minLimit(min).initialLimit(initial).maxLimit(max).build();
    }

    @Override
    Limit limitWithDefaultInitial(int min, int max) {
        return Vegas.builder().minLimit(min).maxLimit(max).build();
    }

    @Override
    String baselineMetric() {
        return "baseRtt";
    }

    @Test
    void defaults() {
        Vegas v = Vegas.defaults();
        assertThat(v.initialLimit()).isEqualTo(5);
        assertThat(v.minLimit()).isEqualTo(1);
        assertThat(v.maxLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(v.alpha()).isEqualTo(1);
        assertThat(v.beta()).isEqualTo(2);
        assertThat(v.decreaseFactor()).isEqualTo(0.5);
        assertThat(v.probeWindow()).isEqualTo(5);
        assertThat(v.baseRttWindow()).isEqualTo(100);
        assertThat(v.baseRttQuantile()).isEqualTo(0.3);
        assertThat(v.name()).isEqualTo("vegas");
        assertThat(v).isSameAs(Vegas.defaults());
    }

    @Test
    void decidesOncePerProbeWindow() {
        Fold fold = new Fold(Vegas.builder().initialLimit(10).maxLimit(100).build());
        fold.successes(4, 10);
        assertThat(fold.limit()).isEqualTo(10);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(11);
        assertThat(fold.state().metrics()).containsOnlyKeys("queue", "baseRtt", "probeRtt", "limit");
        assertThat(fold.metric("probeRtt")).isEqualTo(10.0);
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
        assertThat(fold.metric("queue")).isEqualTo(0.0);
        assertThat(fold.metric("limit")).isEqualTo(11.0);
    }

    /** A window whose median RTT puts the estimated queue at {@code queue} for the current limit. */
    private static double rttForQueue(int limit, double queue) {
        return 10 / (1 - queue / limit);
    }

    @Test
    void holdsWhileTheQueueIsBetweenAlphaAndBeta() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(100).build()).successes(100, 10);
        int before = fold.limit();
        fold.successes(5, rttForQueue(before, 1.5));
        assertThat(fold.limit()).isEqualTo(before);
        assertThat(fold.metric("queue")).isCloseTo(1.5, within(0.01));
    }

    @Test
    void shrinksByOneAboveBeta() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(100).build()).successes(100, 10);
        int before = fold.limit();
        fold.successes(5, rttForQueue(before, 3));
        assertThat(fold.limit()).isEqualTo(before - 1);
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
    }

    @Test
    void oneSlowOutlierInAWindowDoesNotCostASlot() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(100).build()).successes(100, 10);
        int before = fold.limit();
        fold.successes(4, 10).success(500);
        assertThat(fold.limit()).isEqualTo(before + 1);
    }

    @Test
    void dropHalvesAtOnceAndRestartsTheProbeWindow() {
        Fold fold = new Fold(Vegas.builder().initialLimit(21).maxLimit(100).build());
        fold.successes(4, 10).drop(10);
        assertThat(fold.limit()).isEqualTo(10);
        assertThat(((Vegas.State) fold.state()).probe().count()).isZero();
        fold.successes(4, 10);
        assertThat(fold.limit()).isEqualTo(10);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(11);
    }

    @Test
    void failureRttsNeverEnterTheHistory() {
        Fold fold = new Fold(Vegas.defaults()).successes(10, 10).drop(0).rateLimited(0);
        assertThat(((Vegas.State) fold.state()).history().size()).isEqualTo(10);
    }

    @Test
    void historyKeepsOnlyTheLastBaseRttWindowSuccesses() {
        Fold fold = new Fold(Vegas.builder().baseRttWindow(12).build()).successes(50, 10);
        assertThat(((Vegas.State) fold.state()).history().size()).isEqualTo(12);
    }

    static Stream<Arguments> badOptions() {
        return Stream.of(
                bad("alpha", "-1.0", () -> Vegas.builder().alpha(-1).build()),
                bad("alpha", "NaN", () -> Vegas.builder().alpha(Double.NaN).build()),
                bad("beta", "0.5", () -> Vegas.builder().alpha(1).beta(0.5).build()),
                bad("beta", "Infinity", () -> Vegas.builder().beta(Double.POSITIVE_INFINITY).build()),
                bad("decreaseFactor", "0.0", () -> Vegas.builder().decreaseFactor(0).build()),
                bad("decreaseFactor", "1.0", () -> Vegas.builder().decreaseFactor(1).build()),
                bad("probeWindow", "0", () -> Vegas.builder().probeWindow(0).build()),
                bad("baseRttWindow", "0", () -> Vegas.builder().baseRttWindow(0).build()),
                bad("baseRttWindow", "10001", () -> Vegas.builder().baseRttWindow(10_001).build()),
                bad("baseRttQuantile", "1.5", () -> Vegas.builder().baseRttQuantile(1.5).build()),
                bad("baseRttQuantile", "-0.1", () -> Vegas.builder().baseRttQuantile(-0.1).build()));
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
        Vegas v = Vegas.builder().alpha(0).beta(0).baseRttQuantile(0).probeWindow(1).baseRttWindow(1).build();
        new Fold(v).successes(100, 10).drop(1).successes(100, 20);
        assertThat(Vegas.builder().baseRttQuantile(1).build().baseRttQuantile()).isEqualTo(1);
    }
}
