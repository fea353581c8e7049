package dev.adaptive.limit;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
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

    /** One window at the fold's current limit: half of it in slow start, four after. */
    private static Fold window(Fold fold, double rttMillis) {
        boolean slowStart = fold.metric("slowStart") == 1.0;
        return fold.successes(slowStart ? Math.max(4, (fold.limit() + 1) / 2) : 4, rttMillis);
    }

    /** Slow start from 20 over at 32 (latency risen a quarter, past halfway to 1.4) on a 10 ms baseline. */
    private static Fold steady() {
        Fold fold = new Fold(Aimd.builder().initialLimit(20).maxLimit(1_000).build());
        window(fold, 10);
        assertThat(fold.limit()).isEqualTo(30);
        window(fold, 12.5);
        assertThat(fold.limit()).isEqualTo(32);
        assertThat(fold.metric("slowStart")).isZero();
        assertThat(fold.metric("baselineRtt")).isEqualTo(10.0);
        return fold;
    }

    private static Fold answers(Fold fold, double... rttMillis) {
        for (double rtt : rttMillis) {
            fold.success(rtt);
        }
        return fold;
    }

    /** Slow start from 10 to 23 on answers of 8 to 12 ms: a baseline (0.3 quantile) of 9 ms with a spread. */
    private static Fold jittered() {
        Fold fold = new Fold(Aimd.builder().initialLimit(10).maxLimit(1_000).build());
        answers(fold, 8, 9, 10, 11, 12);
        assertThat(fold.limit()).isEqualTo(15);
        answers(fold, 8, 9, 10, 11, 12, 10, 9, 11);
        assertThat(fold.limit()).isEqualTo(23);
        assertThat(fold.metric("baselineRtt")).isEqualTo(9.0);
        return fold;
    }

    /** Twelve answers, median 12 ms: 1.33 times the baseline, but only 2 ms over its median of 10. */
    private static final double[] RISEN_WITHIN_THE_JITTER = {9, 10, 12, 12, 13, 11, 14, 12, 10, 12, 13, 12};

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
        assertThat(a.dropTolerance()).isEqualTo(0.05);
        assertThat(a.name()).isEqualTo("aimd");
    }

    @Test
    void slowStartGrowsByHalfPerWindowOfHalfTheLimitWhileLatencyIsFlat() {
        Fold fold = new Fold(Aimd.builder().initialLimit(10).maxLimit(1_000).build());
        fold.successes(4, 10);
        assertThat(fold.limit()).isEqualTo(10);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(15);
        int[] expected = {23, 35, 53};
        for (int limit : expected) {
            window(fold, 10);
            assertThat(fold.limit()).isEqualTo(limit);
        }
        assertThat(fold.state().metrics()).containsOnlyKeys("baselineRtt", "recentRtt", "ratio", "limit", "wall",
                "held", "slowStart");
        assertThat(fold.metric("ratio")).isEqualTo(1.0);
    }

    /**
     * Regression: the first window was judged against its own low quantile, so its spread alone
     * (median 12 over 9 here) ended slow start before anything had been compared with a past.
     */
    @Test
    void theFirstWindowHasNoPastAndDoesNotEndSlowStart() {
        Fold fold = new Fold(Aimd.builder().initialLimit(10).maxLimit(1_000).build());
        answers(fold, 7, 9, 12, 13, 13);
        assertThat(fold.metric("ratio")).isCloseTo(12.0 / 9, within(1e-9));
        assertThat(fold.limit()).isEqualTo(15);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
    }

    /**
     * The first cohort of a downstream whose knee is at two calls: each answer admitted with one
     * call more in flight came back slower, and at the limit of 5 the line reaches 3 times the
     * answers admitted at one and two. The initial limit is past the knee: it decreases, where
     * judged against itself the window slow-started into the cap.
     */
    @Test
    void aFirstCohortSlowerWithEachCallMoreInFlightDecreases() {
        Fold fold = new Fold(Aimd.defaults());
        long start = fold.now();
        double[] rtts = {5, 6.25, 10, 16.25};
        for (int i = 0; i < rtts.length; i++) {
            fold.apply(new Sample(start, Fold.nanos(rtts[i]), i + 1, Outcome.SUCCESS));
        }

        assertThat(fold.limit()).isLessThan(5);
        assertThat(fold.metric("slowStart")).isZero();
        assertThat(fold.metric("baselineRtt")).isEqualTo(5.0);
    }

    /**
     * Regression: one window of a few jittered answers read a third over a thin baseline with no
     * load and ended slow start at once (S2 with its knee at 24 sat at 5 to 12). Such a rise holds
     * the limit; the next window decides.
     */
    @Test
    void aRiseWithinTheJitterHoldsSlowStartAndTheNextWindowDecides() {
        Fold cleared = jittered();
        answers(cleared, RISEN_WITHIN_THE_JITTER);
        assertThat(cleared.metric("ratio")).isCloseTo(12.0 / 9, within(1e-9));
        assertThat(cleared.limit()).isEqualTo(23);
        assertThat(cleared.metric("slowStart")).isEqualTo(1.0);
        answers(cleared, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10);
        assertThat(cleared.limit()).isEqualTo(35);
        assertThat(cleared.metric("slowStart")).isEqualTo(1.0);

        Fold confirmed = jittered();
        answers(confirmed, RISEN_WITHIN_THE_JITTER);
        answers(confirmed, RISEN_WITHIN_THE_JITTER);
        assertThat(confirmed.limit()).isEqualTo(25);
        assertThat(confirmed.metric("slowStart")).isZero();
    }

    @Test
    void aRiseBeyondTheJitterDecreasesAtOnce() {
        Fold fold = jittered();
        answers(fold, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18);
        assertThat(fold.limit()).isEqualTo(12);
        assertThat(fold.metric("slowStart")).isZero();
    }

    /**
     * Regression: past slow start, four jittered answers with no load read 1.4 to 1.5 times a
     * thin baseline about one window in twenty, and each halved the limit. A congested window
     * within the noise holds; a second one in a row decreases.
     */
    @Test
    void aCongestedWindowWithinTheJitterDecreasesOnlyWhenTheNextOneConfirmsIt() {
        Fold fold = jittered();
        answers(fold, RISEN_WITHIN_THE_JITTER);
        answers(fold, RISEN_WITHIN_THE_JITTER);
        answers(fold, 9, 10, 10, 11);
        assertThat(fold.limit()).isEqualTo(27);
        answers(fold, 11, 13, 14, 15);
        assertThat(fold.metric("ratio")).isCloseTo(13.5 / 9, within(1e-9));
        assertThat(fold.limit()).isEqualTo(27);
        answers(fold, 11, 13, 14, 15);
        assertThat(fold.limit()).isEqualTo(14);
    }

    @Test
    void pastSlowStartEachWindowAddsTheStep() {
        Fold fold = steady();
        for (int i = 1; i <= 5; i++) {
            window(fold, 12.5);
            assertThat(fold.limit()).isEqualTo(32 + 2 * i);
        }
        // Just below the threshold still grows.
        window(fold, 13.9);
        assertThat(fold.limit()).isEqualTo(44);
    }

    @Test
    void aSlowWindowDecreasesOnceNotPerSample() {
        Fold fold = steady();
        fold.successes(3, 20);
        assertThat(fold.limit()).isEqualTo(32);
        fold.success(20);
        assertThat(fold.limit()).isEqualTo(17);
        assertThat(fold.metric("ratio")).isCloseTo(2.0, within(1e-9));
        assertThat(fold.metric("recentRtt")).isCloseTo(20.0, within(1e-9));
        assertThat(fold.metric("baselineRtt")).isCloseTo(10.0, within(1e-9));
    }

    /**
     * Regression: after a halving, windows of attempts admitted before it (slow: they are the
     * overload) kept cutting the limit, 9 to 11 to 6 to 3 to 1 within 80 ms.
     */
    @Test
    void answersAdmittedBeforeTheLastDecreaseDoNotJudgeTheNewLimit() {
        Fold fold = new Fold(Aimd.builder().initialLimit(20).maxLimit(20).build()).successes(40, 10);
        long before = fold.now();
        fold.rateLimited(2);
        assertThat(fold.limit()).isEqualTo(11);
        // The overload's own answers, admitted with 20 in flight before the refusal: slow.
        for (int i = 0; i < 40; i++) {
            fold.apply(new Sample(before + i, Fold.nanos(30), 20, Outcome.SUCCESS));
        }
        assertThat(fold.limit()).isEqualTo(11);
    }

    @Test
    void answersAdmittedBeforeARaiseOrBelowTheLimitDoNotJudgeIt() {
        Fold fold = steady();
        long raised = fold.now();
        Aimd.State before = (Aimd.State) fold.state();
        // Admitted before the raise to 32, at 30: fast, but about 30.
        for (int i = 0; i < 20; i++) {
            fold.apply(new Sample(raised - Fold.MS, Fold.nanos(10), 30, Outcome.SUCCESS));
        }
        // Admitted after it, but with fewer than 32 in flight.
        for (int i = 0; i < 20; i++) {
            fold.apply(new Sample(raised + i, Fold.nanos(10), 31, Outcome.SUCCESS));
        }
        assertThat(fold.limit()).isEqualTo(32);
        assertThat(((Aimd.State) fold.state()).recent().count()).isZero();
        assertThat(fold.state().limit()).isEqualTo(before.limit());
    }

    @Test
    void oneSlowAnswerInAWindowIsNotCongestion() {
        // A 3% slow tail puts one six-fold answer in about one window of four in nine; the mean of
        // such a window is 2.25 times the baseline, its median is not slow at all.
        Fold fold = steady();
        fold.successes(3, 12.5).success(60);
        assertThat(fold.limit()).isEqualTo(34);
        assertThat(fold.metric("recentRtt")).isEqualTo(12.5);
    }

    @Test
    void theBaselineDoesNotCreepWithTheClientsOwnQueueing() {
        // At 32 and above, latency is a quarter up: below the threshold, so the limit grows, but
        // those answers are the client's own queueing and must not become the baseline.
        Fold fold = steady();
        for (int i = 0; i < 60; i++) {
            window(fold, 12.5);
        }
        assertThat(fold.metric("baselineRtt")).isEqualTo(10.0);
        assertThat(fold.metric("ratio")).isEqualTo(1.25);
    }

    @Test
    void afterADecreaseGrowthReturnsQuicklyToTheLastLevelFoundUnloaded() {
        // Unloaded up to 30, loaded at 45, congested at 47: down to 25, straight back to 30.
        Fold fold = new Fold(Aimd.builder().initialLimit(20).maxLimit(1_000).build());
        window(fold, 10);
        window(fold, 10);
        window(fold, 12.5);
        assertThat(fold.limit()).isEqualTo(47);
        window(fold, 20);
        assertThat(fold.limit()).isEqualTo(25);
        window(fold, 10);
        assertThat(fold.limit()).isEqualTo(30);
        window(fold, 10);
        assertThat(fold.limit()).isEqualTo(32);
    }

    @Test
    void anIsolatedDropDoesNotMoveTheLimitARunOfThemDoes() {
        Fold fold = steady();
        for (int i = 0; i < 10; i++) {
            fold.successes(40, 10).drop(10);
            assertThat(fold.limit()).isGreaterThanOrEqualTo(32);
        }
        Fold run = steady();
        run.drop(10).drop(10).drop(10).drop(10);
        assertThat(run.limit()).isEqualTo(32);
        run.drop(10);
        assertThat(run.limit()).isEqualTo(17);
    }

    @Test
    void afterKRefusalsWithNInFlightGrowthReturnsToNMinusKAndStaysThere() {
        Fold fold = new Fold(Aimd.builder().initialLimit(20).maxLimit(1_000).build());
        window(fold, 10);
        window(fold, 10);
        assertThat(fold.limit()).isEqualTo(45);
        long start = fold.now();
        for (int i = 0; i < 8; i++) {
            fold.apply(new Sample(start, Fold.nanos(2) + i, 45, Outcome.rateLimited(Duration.ofSeconds(1))));
        }
        fold.advance(3);
        assertThat(fold.limit()).isEqualTo(24);
        assertThat(fold.metric("held")).isEqualTo(37.0);
        for (int i = 0; i < 200; i++) {
            window(fold, 10);
            assertThat(fold.limit()).isLessThanOrEqualTo(37);
        }
        assertThat(fold.limit()).isEqualTo(37);
    }

    @Test
    void aSlowWindowAlsoGuardsAgainstStaleDrops() {
        Fold fold = steady();
        long windowStart = fold.now();
        fold.successes(4, 20);
        int afterSlowWindow = fold.limit();
        assertThat(afterSlowWindow).isEqualTo(17);
        // In flight during the slow window, so already paid for by its decrease.
        for (int i = 0; i < 10; i++) {
            fold.apply(new Sample(windowStart, Fold.nanos(60), 32, Outcome.DROPPED));
        }
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
                bad("baseRttQuantile", "2.0", () -> Aimd.builder().baseRttQuantile(2).build()),
                bad("dropTolerance", "1.5", () -> Aimd.builder().dropTolerance(1.5).build()));
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
