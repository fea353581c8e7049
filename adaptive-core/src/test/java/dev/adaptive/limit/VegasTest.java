package dev.adaptive.limit;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Arrays;
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

    /** The successes one probe takes at the fold's current limit, with the default probeWindow. */
    private static int window(Fold fold) {
        return Math.max(5, (fold.limit() + 1) / 2);
    }

    /** One probe of identical RTTs: the window judged exactly, without sampling noise. */
    private static Fold probe(Fold fold, double rttMillis) {
        return fold.successes(window(fold), rttMillis);
    }

    /** The RTT that puts the estimated queue at {@code queue} against a 10 ms baseline. */
    private static double rttForQueue(int limit, double queue) {
        return 10 / (1 - queue / limit);
    }

    /**
     * Slow start over at a limit of 45 with a 10 ms baseline: 20 grows to 30 and 45 on two flat
     * probes (the baseline's first 25 RTTs), then two probes in the alpha'..beta' band end it.
     */
    private static Fold steady() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(45);
        probe(fold, rttForQueue(45, 6));
        probe(fold, rttForQueue(45, 6));
        assertThat(fold.limit()).isEqualTo(45);
        assertThat(fold.metric("slowStart")).isZero();
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
        return fold;
    }

    @Test
    void defaults() {
        Vegas v = Vegas.defaults();
        assertThat(v.initialLimit()).isEqualTo(5);
        assertThat(v.minLimit()).isEqualTo(1);
        assertThat(v.maxLimit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(v.alpha()).isEqualTo(1);
        assertThat(v.beta()).isEqualTo(2);
        assertThat(v.alphaShare()).isEqualTo(0.1);
        assertThat(v.betaShare()).isEqualTo(0.2);
        assertThat(v.decreaseFactor()).isEqualTo(0.5);
        assertThat(v.dropTolerance()).isEqualTo(0.05);
        assertThat(v.probeWindow()).isEqualTo(5);
        assertThat(v.slowStartFactor()).isEqualTo(1.5);
        assertThat(v.baseRttWindow()).isEqualTo(100);
        assertThat(v.baseRttQuantile()).isEqualTo(0.3);
        assertThat(v.name()).isEqualTo("vegas");
        assertThat(v).isSameAs(Vegas.defaults());
    }

    @Test
    void decidesOncePerProbeOfHalfTheLimit() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(100).build());
        fold.successes(9, 10);
        assertThat(fold.limit()).isEqualTo(20);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(30);
        assertThat(fold.state().metrics()).containsOnlyKeys("queue", "baseRtt", "probeRtt", "limit", "step",
                "wall", "held", "slowStart", "dropRate");
        assertThat(fold.metric("probeRtt")).isEqualTo(10.0);
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
        assertThat(fold.metric("queue")).isEqualTo(0.0);
        assertThat(fold.metric("limit")).isEqualTo(30.0);
        // The next probe needs half of 30.
        fold.successes(14, 10);
        assertThat(fold.limit()).isEqualTo(30);
        fold.success(10);
        assertThat(fold.limit()).isEqualTo(45);
    }

    @Test
    void attemptsAdmittedBeforeTheChangeOrBelowTheLimitDoNotProbeIt() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(100).build());
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(30);
        long decided = fold.now();
        Vegas.State before = (Vegas.State) fold.state();
        // Admitted a millisecond before the raise, at the old limit: slow, but about the old limit.
        for (int i = 0; i < 40; i++) {
            fold.apply(new Sample(decided - Fold.MS, Fold.nanos(100), 20, Outcome.SUCCESS));
        }
        assertThat(fold.state()).isEqualTo(before);
        // Admitted after it, but while fewer than 30 were in flight: as fast as the baseline,
        // they show no queue at 29, and say nothing of room at 30.
        for (int i = 0; i < 40; i++) {
            fold.apply(new Sample(decided + i, Fold.nanos(10), 29, Outcome.SUCCESS));
        }
        assertThat(fold.limit()).isEqualTo(30);
        assertThat(((Vegas.State) fold.state()).probe().count()).isZero();
        assertThat(fold.state().metrics()).isEqualTo(before.metrics());
    }

    @Test
    void answersBelowTheLimitThatQueueAtTheirOwnConcurrencyLowerIt() {
        // A limit of 45 that the client stopped using in full (a fleet member held to its share,
        // a client with less work): answers admitted at 20 in flight, twice as slow as the
        // baseline, show a queue of 10 calls at 20, beyond beta' there (4): the downstream takes
        // about 20 - 6 = 14, and 45 was never tested against that load. One decrease at most
        // halves the limit: 22.
        Fold fold = steady();
        long decided = fold.now();
        for (int i = 0; i < 22; i++) {
            fold.apply(new Sample(decided + i, Fold.nanos(20), 20, Outcome.SUCCESS));
        }
        assertThat(fold.limit()).isEqualTo(45);
        fold.apply(new Sample(decided + 22, Fold.nanos(20), 20, Outcome.SUCCESS));
        assertThat(fold.limit()).isEqualTo(22);
        assertThat(fold.metric("queue")).isEqualTo(10.0);
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
    }

    @Test
    void answersBelowTheLimitNeverGrowItNorTouchTheBaseline() {
        Fold fold = steady();
        Vegas.State before = (Vegas.State) fold.state();
        long decided = fold.now();
        // A queue at 20 within beta' there: the limit holds.
        for (int i = 0; i < 23 * 3; i++) {
            fold.apply(new Sample(decided + i, Fold.nanos(rttForQueue(20, 3.5)), 20, Outcome.SUCCESS));
        }
        // Faster than the baseline: no room is proven above 45, and the baseline stays.
        for (int i = 0; i < 23 * 3; i++) {
            fold.apply(new Sample(decided + 100 + i, Fold.nanos(5), 20, Outcome.SUCCESS));
        }
        // Two in flight can never queue beyond beta: they are not even kept.
        for (int i = 0; i < 23 * 3; i++) {
            fold.apply(new Sample(decided + 200 + i, Fold.nanos(1_000), 2, Outcome.SUCCESS));
        }
        Vegas.State after = (Vegas.State) fold.state();
        assertThat(after.limit()).isEqualTo(45);
        assertThat(after.history()).isEqualTo(before.history());
        assertThat(after.below().count()).isZero();
        assertThat(after.metrics()).isEqualTo(before.metrics());
    }

    @Test
    void slowStartGrowsByHalfPerProbeWhileNothingQueues() {
        Fold fold = new Fold(Vegas.defaults());
        int[] expected = {8, 12, 18, 27, 41, 62};
        for (int limit : expected) {
            probe(fold, 10);
            assertThat(fold.limit()).isEqualTo(limit);
            assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        }
    }

    /** The initial limit's attempts, admitted at once with 1, 2, ... calls in flight, answering in {@code rttMillis}. */
    private static void firstCohort(Fold fold, double... rttMillis) {
        long start = fold.now();
        for (int i = 0; i < rttMillis.length; i++) {
            fold.apply(new Sample(start, Fold.nanos(rttMillis[i]), i + 1, Outcome.SUCCESS));
        }
    }

    /**
     * The first cohort of a downstream whose knee is at two calls (5 ms up to two, quadratic
     * growth past it): each answer admitted with one call more in flight came back slower. The
     * initial limit is past the knee already; judged against itself, the window read no queue
     * and slow start went to 8.
     */
    @Test
    void aFirstCohortSlowerWithEachCallMoreInFlightIsNotTakenForRoom() {
        Fold fold = new Fold(Vegas.defaults());
        firstCohort(fold, 5, 5, 6.25, 10, 16.25);

        assertThat(fold.limit()).isLessThan(5);
        assertThat(fold.metric("baseRtt")).isEqualTo(5.0);
        assertThat(fold.metric("slowStart")).isZero();
        // The baseline is the answers admitted at one and two calls: the limit's own answers,
        // at 10 ms, keep reading a queue rather than becoming the baseline.
        fold.advance(20);
        for (int i = 0; i < 4; i++) {
            probe(fold, 10);
            assertThat(fold.limit()).isLessThanOrEqualTo(4);
        }
        assertThat(fold.metric("baseRtt")).isEqualTo(5.0);
    }

    /** The same cohort in an order chance gives: one level, judged against itself, as before. */
    @Test
    void aFirstCohortWithoutOrderIsOneLevel() {
        Fold fold = new Fold(Vegas.defaults());
        firstCohort(fold, 10, 16.25, 5, 6.25, 5);

        assertThat(fold.limit()).isEqualTo(8);
    }

    /** Slow start from 20, one flat probe: at 30, with 20 the last level found unloaded. */
    private static Fold slowStartAtThirtyFromTwenty() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(30);
        return fold;
    }

    /**
     * A queue that surely grew from none at 20 to 2.25 at 30 grows at least as the square of the
     * distance from 20 past it: at 38 that is 7.3 where alpha' is 3.8, most of the band (a hard
     * cap next to the knee would be met at once). The step stops where the queue would reach
     * alpha' (31: 2.7 against 3.1), not at the quarter more that the headroom alone allows.
     */
    @Test
    void slowStartStepsNoFurtherThanTheQueueItSawGrowingAllows() {
        Fold fold = slowStartAtThirtyFromTwenty();
        probe(fold, rttForQueue(30, 2.25));
        assertThat(fold.metric("queue")).isCloseTo(2.25, within(1e-5));
        assertThat(fold.limit()).isEqualTo(31);
    }

    /**
     * The same queue read by a window too noisy to be sure of it (every third answer at the
     * queue's RTT, the others far slower by chance): no evidence of the queue's growth to go by,
     * and the step is the headroom's, a quarter more rather than a half since alpha' at 30 is 3
     * and 2.25 leaves half the headroom.
     */
    @Test
    void slowStartTakesAShorterStepAsTheQueueNearsAlpha() {
        Fold fold = slowStartAtThirtyFromTwenty();
        for (int i = 0; i < 5; i++) {
            fold.success(rttForQueue(30, 2.25)).successes(2, 14);
        }
        assertThat(fold.metric("queue")).isCloseTo(2.25, within(1e-5));
        assertThat(fold.limit()).isEqualTo(38);
    }

    @Test
    void holdsWhileTheQueueIsBetweenAlphaAndBeta() {
        Fold fold = steady();
        for (int i = 0; i < 10; i++) {
            probe(fold, rttForQueue(45, 4.6 + i * 0.43));
            assertThat(fold.limit()).isEqualTo(45);
        }
    }

    @Test
    void aQueueBeyondBetaTakesTheExcessAway() {
        Fold fold = steady();
        // beta' at 45 is 9: a queue of 11.9 is 2.9 too many, rounded up to 3.
        probe(fold, rttForQueue(45, 11.9));
        assertThat(fold.limit()).isEqualTo(42);
    }

    @Test
    void theExcessNeverTakesMoreThanTheDecreaseFactor() {
        Fold fold = steady();
        probe(fold, rttForQueue(45, 40));
        assertThat(fold.limit()).isEqualTo(22);
    }

    @Test
    void slowStartEndsAtAQueueBeyondBeta() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        probe(fold, rttForQueue(45, 11.9));
        assertThat(fold.limit()).isEqualTo(42);
        assertThat(fold.metric("slowStart")).isZero();
    }

    @Test
    void oneProbeInTheBandHoldsButDoesNotEndSlowStart() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        probe(fold, rttForQueue(45, 6));
        assertThat(fold.limit()).isEqualTo(45);
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
    }

    @Test
    void afterSlowStartTheStepStartsAtOneAndDoublesWhileNothingQueues() {
        Fold fold = steady();
        int[] expected = {46, 48, 52, 60};
        for (int limit : expected) {
            probe(fold, 10);
            assertThat(fold.limit()).isEqualTo(limit);
        }
        // A queue in the band resets the pace.
        probe(fold, rttForQueue(60, 8));
        assertThat(fold.limit()).isEqualTo(60);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(61);
    }

    @Test
    void aQueueWithinTheSamplingNoiseOfAJitteryProbeDoesNotCount() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(45);
        // 23 RTTs whose 0.3 quantile (the 7th) is 11.5 ms, a queue of 5.9 at 45, but spread from
        // 5 to 40 ms: far more than a 15% difference between two such small samples can prove.
        double[] noisy = new double[23];
        Arrays.fill(noisy, 0, 6, 5);
        noisy[6] = 11.5;
        Arrays.fill(noisy, 7, 23, 40);
        for (int i = 0; i < 2; i++) {
            for (double rtt : noisy) {
                fold.success(rtt);
            }
            assertThat(fold.metric("queue")).isCloseTo(45 * (1 - 10 / 11.5), within(1e-5));
            assertThat(fold.limit()).isEqualTo(45);
            assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        }
    }

    @Test
    void theBaselineDoesNotCreepAtTheOperatingPoint() {
        Fold fold = steady();
        RttHistory history = ((Vegas.State) fold.state()).history();
        for (int i = 0; i < 200; i++) {
            probe(fold, rttForQueue(45, 7));
        }
        assertThat(fold.limit()).isEqualTo(45);
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
        assertThat(((Vegas.State) fold.state()).history()).isEqualTo(history);
    }

    @Test
    void isolatedDropsDoNotMoveTheLimit() {
        Fold fold = steady();
        double inBand = rttForQueue(45, 7);
        for (int i = 0; i < 30; i++) {
            fold.successes(49, inBand).drop(inBand);
            assertThat(fold.limit()).isEqualTo(45);
        }
        assertThat(fold.metric("dropRate")).isPositive().isLessThan(0.05);
    }

    @Test
    void fiveDropsInARowHalveTheLimitAndEndSlowStart() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(30);
        fold.drop(10).drop(10).drop(10).drop(10);
        assertThat(fold.limit()).isEqualTo(30);
        fold.drop(10);
        assertThat(fold.limit()).isEqualTo(15);
        assertThat(fold.metric("slowStart")).isZero();
    }

    @Test
    void aRateLimitHalvesAtOnceAndEndsSlowStart() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        fold.rateLimited(10);
        assertThat(fold.limit()).isEqualTo(15);
        assertThat(fold.metric("slowStart")).isZero();
        assertThat(((Vegas.State) fold.state()).probe().count()).isZero();
    }

    @Test
    void withoutDropToleranceEveryDropHalves() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).dropTolerance(0).build());
        fold.drop(10);
        assertThat(fold.limit()).isEqualTo(10);
    }

    /** Regression: a transient error must not make a rate limit that follows it look stale. */
    @Test
    void anIsolatedDropDoesNotShieldALaterRateLimit() {
        Fold fold = steady();
        long start = fold.now();
        fold.apply(new Sample(start, Fold.nanos(5), 45, Outcome.DROPPED));
        assertThat(fold.limit()).isEqualTo(45);
        // Admitted together with the failed attempt, answered after it.
        fold.apply(new Sample(start, Fold.nanos(6), 45, Outcome.rateLimited(Duration.ofSeconds(1))));
        assertThat(fold.limit()).isEqualTo(22);
    }

    @Test
    void afterAProbeThatFoundAQueueSlowStartGrowsByOneSlotOnly() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        probe(fold, rttForQueue(45, 6));
        assertThat(fold.metric("slowStart")).isEqualTo(1.0);
        // A quiet probe right after a queued one: one slot, not half again.
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(46);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(69);
    }

    /** A burst of {@code k} refusals of attempts admitted with {@code n} in flight, all at once. */
    private static void burst(Fold fold, int n, int k) {
        long start = fold.now();
        for (int i = 0; i < k; i++) {
            fold.apply(new Sample(start, Fold.nanos(2) + i, n, Outcome.rateLimited(Duration.ofSeconds(1))));
        }
        fold.advance(3);
    }

    /** Slow start from 20 to 45 on two flat probes: the level probed last is 30. */
    private static Fold leapt() {
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(45);
        return fold;
    }

    @Test
    void afterKRefusalsWithNInFlightGrowthReturnsToNMinusKAndStaysThere() {
        // Seen over real HTTP on a flat cap: a leap of slow start, refused by k of the n in
        // flight. The server held n - k; n itself, or a tenth below it, is still past the cap.
        Fold fold = leapt();
        burst(fold, 45, 8);
        assertThat(fold.limit()).isEqualTo(22);
        assertThat(fold.metric("wall")).isEqualTo(45.0);
        assertThat(fold.metric("held")).isEqualTo(37.0);
        // Quiet probes double the step (23, 25, 29), then go straight to the level held.
        int[] expected = {23, 25, 29, 37};
        for (int limit : expected) {
            probe(fold, 10);
            assertThat(fold.limit()).isEqualTo(limit);
        }
        for (int i = 0; i < 40; i++) {
            probe(fold, 10);
            assertThat(fold.limit()).isEqualTo(37);
        }
    }

    @Test
    void theLevelOfTheLastQuietProbeCountsAsHeld() {
        // Steady at 45, probed there many times without a refusal: ten refusals at 45 say the
        // server is full at 45, not that it held only 35.
        Fold fold = steady();
        burst(fold, 45, 10);
        assertThat(fold.metric("held")).isEqualTo(44.0);
        for (int i = 0; i < 12; i++) {
            probe(fold, 10);
        }
        assertThat(fold.limit()).isEqualTo(44);
    }

    @Test
    void theWallIsTheLowestConcurrencyAnOverloadBurstWasRefusedAt() {
        Fold fold = leapt();
        // A leap sent a burst; its refusals come back out of order: 45 first, then 41 and 43.
        long start = fold.now();
        fold.apply(new Sample(start, Fold.nanos(2), 45, Outcome.rateLimited(Duration.ofSeconds(1))));
        assertThat(fold.limit()).isEqualTo(22);
        assertThat(fold.metric("wall")).isEqualTo(45.0);
        fold.apply(new Sample(start, Fold.nanos(3), 41, Outcome.rateLimited(Duration.ofSeconds(1))));
        fold.apply(new Sample(start, Fold.nanos(4), 43, Outcome.rateLimited(Duration.ofSeconds(1))));
        // No second halving for the same overload; three refusals with up to 45 in flight.
        assertThat(fold.limit()).isEqualTo(22);
        assertThat(fold.metric("wall")).isEqualTo(41.0);
        assertThat(fold.metric("held")).isEqualTo(40.0);
        // A stale drop says nothing about the wall.
        fold.apply(new Sample(start, Fold.nanos(5), 30, Outcome.DROPPED));
        assertThat(fold.metric("wall")).isEqualTo(41.0);
        assertThat(fold.metric("held")).isEqualTo(40.0);
    }

    @Test
    void aSlotPastTheHeldLevelIsProbedOnlyOnceTheWallHasStoodForThirtyRetryAfters() {
        Fold fold = new Fold(Vegas.builder().initialLimit(10).maxLimit(1_000).build());
        probe(fold, 10);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(23);
        long refusedAt = fold.now();
        burst(fold, 23, 3);
        assertThat(fold.metric("held")).isEqualTo(20.0);
        while (fold.now() - refusedAt < Duration.ofSeconds(30).toNanos() - Fold.nanos(150)) {
            probe(fold, 10);
            assertThat(fold.limit()).isLessThanOrEqualTo(20);
        }
        assertThat(fold.limit()).isEqualTo(20);
        for (int i = 0; i < 3; i++) {
            probe(fold, 10);
        }
        assertThat(fold.limit()).isEqualTo(21);
        // That probe ends without a refusal: 21 is held now, and 22 waits thirty Retry-Afters more.
        long probedAt = fold.now();
        probe(fold, 10);
        assertThat(fold.metric("held")).isEqualTo(21.0);
        while (fold.now() - probedAt < Duration.ofSeconds(29).toNanos()) {
            probe(fold, 10);
            assertThat(fold.limit()).isEqualTo(21);
        }
    }

    @Test
    void aWallHeldAtMoreThanThirtyWaitsOneRetryAfterPerSlot() {
        Fold fold = leapt();
        long refusedAt = fold.now();
        burst(fold, 45, 8);
        while (fold.now() - refusedAt < Duration.ofSeconds(37).toNanos() - Fold.nanos(200)) {
            probe(fold, 10);
            assertThat(fold.limit()).isLessThanOrEqualTo(37);
        }
        for (int i = 0; i < 3; i++) {
            probe(fold, 10);
        }
        assertThat(fold.limit()).isEqualTo(38);
    }

    @Test
    void aQuietProbeAtTheRefusedLevelForgetsTheWall() {
        // Refused once at 40 with 40 in flight: held 39. 39 seconds later 40 is probed, ends
        // without a refusal: the cap has moved, and growth goes on as if there had been no wall.
        Fold fold = new Fold(Vegas.builder().initialLimit(40).maxLimit(1_000).build());
        burst(fold, 40, 1);
        assertThat(fold.metric("held")).isEqualTo(39.0);
        long refusedAt = fold.now();
        while (fold.now() - refusedAt < Duration.ofSeconds(41).toNanos() && fold.limit() < 40) {
            probe(fold, 10);
        }
        assertThat(fold.limit()).isEqualTo(40);
        probe(fold, 10);
        assertThat(fold.metric("wall")).isEqualTo(Integer.MAX_VALUE);
        for (int i = 0; i < 5; i++) {
            probe(fold, 10);
        }
        assertThat(fold.limit()).isGreaterThan(45);
    }

    /**
     * Regression: a slow-start probe that found a queue, taken into the baseline only because the
     * baseline was still thin, raised the level whose probes feed the baseline for good; at
     * S1's knee (base 40 ms, 50 ms at 12) the baseline then crept to 50 ms and the limit past the
     * optimum.
     */
    @Test
    void aQueuedProbeTakenIntoAThinBaselineDoesNotMakeItsLevelUnloaded() {
        Fold fold = new Fold(Vegas.defaults());
        probe(fold, 40);
        probe(fold, 40);
        assertThat(fold.limit()).isEqualTo(12);
        for (int i = 0; i < 40; i++) {
            probe(fold, 50);
        }
        assertThat(fold.metric("slowStart")).isZero();
        assertThat(fold.metric("baseRtt")).isEqualTo(40.0);
        assertThat(fold.limit()).isEqualTo(12);
    }

    @Test
    void pastSlowStartAQueueBeyondHalfOfAlphaGrowsByOneSlotWhateverThePace() {
        Fold fold = steady();
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(46);
        // alpha' at 46 is 4.6: a queue of 3 is below it but near; the pace (2) would add two.
        probe(fold, rttForQueue(46, 3));
        assertThat(fold.limit()).isEqualTo(47);
    }

    @Test
    void aProbeInTheBandStartsThePaceOfGrowthAgain() {
        Fold fold = steady();
        probe(fold, 10);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(48);
        // In the band (alpha' 4.8 .. beta' 9.6) but within the noise of a spread-out window: hold.
        double[] noisy = new double[24];
        Arrays.fill(noisy, 0, 6, 5);
        noisy[6] = rttForQueue(48, 6);
        Arrays.fill(noisy, 7, 24, 40);
        for (double rtt : noisy) {
            fold.success(rtt);
        }
        assertThat(fold.limit()).isEqualTo(48);
        assertThat(fold.metric("step")).isEqualTo(1.0);
        probe(fold, 10);
        assertThat(fold.limit()).isEqualTo(49);
    }

    @Test
    void whileTheLimitHoldsAProbeIsJudgedWithTheOneBeforeUnlessTheyDiffer() {
        Fold fold = steady();
        // Alone, this spread-out window reads a queue of 3.3, below alpha' (4.5): one slot more.
        // With the probe before it at 45 (a queue of 6, within this one's noise) it reads 6: hold.
        double[] lucky = new double[23];
        Arrays.fill(lucky, 0, 6, 9.5);
        lucky[6] = 10.8;
        Arrays.fill(lucky, 7, 23, 13);
        for (double rtt : lucky) {
            fold.success(rtt);
        }
        assertThat(fold.limit()).isEqualTo(45);
        assertThat(fold.metric("queue")).isCloseTo(6, within(0.01));
        // A probe surely unlike the one before is judged alone: the downstream changed.
        probe(fold, rttForQueue(45, 11.9));
        assertThat(fold.limit()).isEqualTo(42);
    }

    @Test
    void aRunOfDropsLeavesNoWall() {
        Fold fold = steady();
        fold.drop(10).drop(10).drop(10).drop(10).drop(10);
        assertThat(fold.limit()).isEqualTo(22);
        assertThat(fold.metric("wall")).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aBaselineTakenColdFollowsProbesSurelyFasterThanIt() {
        // The first answers carry new connections and an unwarmed JIT: 60 ms instead of 10.
        Fold fold = new Fold(Vegas.builder().initialLimit(20).maxLimit(20).build());
        fold.successes(10, 60);
        fold.successes(10, 60);
        assertThat(fold.metric("baseRtt")).isEqualTo(60.0);
        for (int i = 0; i < 20; i++) {
            probe(fold, 10);
        }
        assertThat(fold.metric("baseRtt")).isEqualTo(10.0);
        // Warm, the baseline judges a real queue again: at 20, 14 ms is a queue of 5.7 > beta'.
        probe(fold, 14);
        assertThat(fold.limit()).isLessThan(20);
    }

    @Test
    void aColdFirstProbeDoesNotLetSlowStartRunPastTheKnee() {
        // S3's server (base 40 ms, soft 6, hard 12) behind a fresh client whose first answers
        // took 400 ms. Kept in the baseline, that cold probe made every warm probe read as
        // "no queue" and slow start leapt from 12 to 18, past the hard cap (seen over real HTTP).
        Fold fold = new Fold(Vegas.defaults());
        probe(fold, 400);
        int highest = fold.limit();
        for (int i = 0; i < 30; i++) {
            int n = fold.limit();
            double over = Math.max(0, n - 6) / 6.0;
            probe(fold, 40 * (1 + over * over));
            highest = Math.max(highest, fold.limit());
        }
        assertThat(highest).isLessThanOrEqualTo(12);
        assertThat(fold.limit()).isBetween(7, 12);
        assertThat(fold.metric("baseRtt")).isLessThan(50.0);
    }

    @Test
    void inSlowStartARiseWithinTheProbeWindowCountsAsAQueue() {
        // Seen over real HTTP (S3, soft 6, hard 12): after the step to 12 the first answers came
        // from the ramp (the server had fewer calls than the client counted, connections still
        // opening), the last ones from the level reached. The low quantile of the whole window
        // read no queue and slow start leapt to 18, past the hard cap.
        Fold fold = new Fold(Vegas.defaults());
        probe(fold, 50);
        probe(fold, 47);
        assertThat(fold.limit()).isEqualTo(12);
        for (double rtt : new double[] {41.7, 44.1, 50.1, 61.7, 69.5, 69.9}) {
            fold.success(rtt);
        }
        assertThat(fold.limit()).isLessThanOrEqualTo(12);
        assertThat(fold.metric("probeRtt")).isGreaterThan(60.0);
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
                bad("alphaShare", "-0.1", () -> Vegas.builder().alphaShare(-0.1).build()),
                bad("alphaShare", "NaN", () -> Vegas.builder().alphaShare(Double.NaN).build()),
                bad("betaShare", "0.05", () -> Vegas.builder().betaShare(0.05).build()),
                bad("betaShare", "1.5", () -> Vegas.builder().betaShare(1.5).build()),
                bad("decreaseFactor", "0.0", () -> Vegas.builder().decreaseFactor(0).build()),
                bad("decreaseFactor", "1.0", () -> Vegas.builder().decreaseFactor(1).build()),
                bad("dropTolerance", "1.5", () -> Vegas.builder().dropTolerance(1.5).build()),
                bad("dropTolerance", "-0.01", () -> Vegas.builder().dropTolerance(-0.01).build()),
                bad("probeWindow", "0", () -> Vegas.builder().probeWindow(0).build()),
                bad("slowStartFactor", "0.5", () -> Vegas.builder().slowStartFactor(0.5).build()),
                bad("slowStartFactor", "4.5", () -> Vegas.builder().slowStartFactor(4.5).build()),
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
        Vegas v = Vegas.builder().alpha(0).beta(0).alphaShare(0.01).betaShare(0.01).baseRttQuantile(0).probeWindow(1)
                .baseRttWindow(1).dropTolerance(0).slowStartFactor(1).build();
        new Fold(v).successes(100, 10).drop(1).successes(100, 20);
        Vegas w = Vegas.builder().alphaShare(1).betaShare(1).dropTolerance(1).slowStartFactor(4).build();
        new Fold(w).successes(100, 10).drop(1).successes(100, 20);
        assertThat(Vegas.builder().baseRttQuantile(1).build().baseRttQuantile()).isEqualTo(1);
    }

    @Test
    void alphaAndAlphaShareBothZeroAreRefusedSinceTheLimitCouldNeverGrow() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Vegas.builder().alpha(0).alphaShare(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("alpha and alphaShare must not both be 0 (the limit could never grow): alpha=0.0, alphaShare=0.0");
        org.assertj.core.api.Assertions.assertThatCode(() -> Vegas.builder().alpha(0).alphaShare(0.1).beta(2).build())
                .doesNotThrowAnyException();
    }
}
