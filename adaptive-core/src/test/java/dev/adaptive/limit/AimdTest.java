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

class AimdTest extends AdaptiveLimitContract {

    @Override
    Limit limit(int min, int initial, int max) {
        return Aimd.builder().minLimit(min).initialLimit(initial).maxLimit(max).build();
    }

    @Override
    Limit limitWithDefaultInitial(int min, int max) {
        return Aimd.builder().minLimit(min).maxLimit(max).build();
    }

    @Override
    String baselineMetric() {
        return "baselineRtt";
    }

    @Test
    void defaults() {
        Aimd a = Aimd.defaults();
        assertThat(a.initialLimit()).isEqualTo(5);
        assertThat(a.minLimit()).isEqualTo(1);
        assertThat(a.maxLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(a.increaseStep()).isEqualTo(2);
        assertThat(a.decreaseFactor()).isEqualTo(0.55);
        assertThat(a.congestionThreshold()).isEqualTo(1.4);
        assertThat(a.stabilityWindow()).isEqualTo(4);
        assertThat(a.baseRttWindow()).isEqualTo(100);
        assertThat(a.baseRttQuantile()).isEqualTo(0.3);
        assertThat(a.name()).isEqualTo("aimd");
    }

    @Test
    void growsByTheStepAfterEachStableWindow() {
        Fold fold = new Fold(Aimd.builder().initialLimit(10).build());
        fold.successes(3, 10);
        assertThat(fold.limit()).isEqualTo(10);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(12);
        fold.successes(4, 10);
        assertThat(fold.limit()).isEqualTo(14);
        assertThat(fold.state().metrics()).containsOnlyKeys("baselineRtt", "recentRtt", "ratio", "limit");
        assertThat(fold.metric("ratio")).isEqualTo(1.0);
    }

    @Test
    void aSlowWindowDecreasesOnceNotPerSample() {
        Fold fold = new Fold(Aimd.builder().initialLimit(40).maxLimit(40).build()).successes(40, 10);
        fold.successes(3, 20);
        assertThat(fold.limit()).isEqualTo(40);
        fold.success(20);
        assertThat(fold.limit()).isEqualTo(22);
        assertThat(fold.metric("ratio")).isCloseTo(2.0, within(1e-9));
        assertThat(fold.metric("recentRtt")).isCloseTo(20.0, within(1e-9));
        assertThat(fold.metric("baselineRtt")).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void aWindowJustBelowTheThresholdStillGrows() {
        Fold fold = new Fold(Aimd.builder().initialLimit(20).maxLimit(100).build()).successes(40, 10);
        int before = fold.limit();
        fold.successes(4, 13.9);
        assertThat(fold.limit()).isEqualTo(before + 2);
    }

    @Test
    void dropMultipliesByTheFactorAndRestartsTheWindow() {
        Fold fold = new Fold(Aimd.builder().initialLimit(20).build());
        fold.successes(3, 10).drop(10);
        assertThat(fold.limit()).isEqualTo(11);
        fold.successes(3, 10);
        assertThat(fold.limit()).isEqualTo(11);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(13);
    }

    @Test
    void aSlowWindowAlsoGuardsAgainstStaleDrops() {
        Fold fold = new Fold(Aimd.builder().initialLimit(40).maxLimit(40).build()).successes(40, 10);
        long windowStart = fold.now();
        fold.successes(4, 20);
        int afterSlowWindow = fold.limit();
        assertThat(afterSlowWindow).isEqualTo(22);
        // In flight during the slow window, so already paid for by its decrease.
        fold.apply(new Sample(windowStart, Fold.nanos(60), 40, dev.adaptive.Outcome.DROPPED));
        assertThat(fold.limit()).isEqualTo(afterSlowWindow);
    }

    static Stream<Arguments> badOptions() {
        return Stream.of(
                bad("increaseStep", "0", () -> Aimd.builder().increaseStep(0).build()),
                bad("decreaseFactor", "1.2", () -> Aimd.builder().decreaseFactor(1.2).build()),
                bad("decreaseFactor", "-0.5", () -> Aimd.builder().decreaseFactor(-0.5).build()),
                bad("congestionThreshold", "1.0", () -> Aimd.builder().congestionThreshold(1).build()),
                bad("congestionThreshold", "NaN", () -> Aimd.builder().congestionThreshold(Double.NaN).build()),
                bad("stabilityWindow", "0", () -> Aimd.builder().stabilityWindow(0).build()),
                bad("baseRttWindow", "-1", () -> Aimd.builder().baseRttWindow(-1).build()),
                bad("baseRttQuantile", "2.0", () -> Aimd.builder().baseRttQuantile(2).build()));
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
}
