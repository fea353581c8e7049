package dev.adaptive.queue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The rate moves under each strategy and timing; broken policies halt the queue, losing nothing. */
class QueueAdaptationTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private final List<RateObservation> observations = new ArrayList<>();

    @AfterEach
    void countersMatchTheListener() {
        assertNoUncaught();
    }

    private void assertCountersMatch(ThrottledQueue q) {
        QueueState s = q.state();
        assertThat(s.rateIncreases()).isEqualTo(changes.stream().filter(c -> c.to() > c.from()).count());
        assertThat(s.rateDecreases()).isEqualTo(changes.stream().filter(c -> c.to() < c.from()).count());
    }

    private RateStrategy recording(RateStrategy inner) {
        return o -> {
            observations.add(o);
            return inner.decide(o);
        };
    }

    private Function<Object, Object> failAfter(long nanos) {
        return ctx -> time.nanoTime() < nanos ? "ok" : new IllegalStateException("failing since " + nanos);
    }

    @Test
    void theRateStartsAtTheMidpointAndLinearClimbsOnePerCleanInterval() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).build();
        assertThat(q.rate()).isEqualTo(5);
        for (int i = 0; i < 60; i++) {
            q.submit(task(millis(10)));
        }
        time.runUntilIdle();
        assertThat(startsPerInterval(SECOND, 8)).containsExactly(5, 6, 7, 8, 9, 9, 9, 7);
        assertThat(changes).containsExactly(new Change(5, 6, ms(1000)), new Change(6, 7, ms(2000)),
                new Change(7, 8, ms(3000)), new Change(8, 9, ms(4000)));
        assertThat(q.state().rate()).isEqualTo(9);
        assertCountersMatch(q);
    }

    @Test
    void linearStepsDownOnTooManyErrorsAndBacksOffOneFullInterval() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).errorsPerInterval(2).backOff(true).build();
        for (int i = 0; i < 20; i++) {
            q.submit(task(millis(10), new IllegalStateException("down")));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(200), ms(400), ms(600), ms(800),
                ms(2000), ms(2250), ms(2500), ms(2750),
                ms(4000), 4_333_333_333L, 4_666_666_666L,
                ms(6000), ms(6500),
                ms(8000), ms(9000), ms(10000), ms(11000), ms(12000), ms(13000));
        assertThat(changes).containsExactly(new Change(5, 4, ms(1000)), new Change(4, 3, ms(3000)),
                new Change(3, 2, ms(5000)), new Change(2, 1, ms(7000)));
        assertCountersMatch(q);
    }

    @Test
    void withoutBackOffTheLowerRateAppliesAtOnce() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).errorsPerInterval(2).build();
        for (int i = 0; i < 20; i++) {
            q.submit(task(millis(10), new IllegalStateException("down")));
        }
        time.runUntilIdle();
        assertThat(startsPerInterval(SECOND, 6)).containsExactly(5, 4, 3, 2, 1, 1);
        assertThat(q.state().holdUntilNanos()).isEmpty();
        assertCountersMatch(q);
    }

    @Test
    void aimdAddsOnCleanIntervalsAndMultipliesDownOnTooManyErrors() {
        ThrottledQueue q = builder(1, SECOND).maxRate(19).errorsPerInterval(3)
                .rateStrategy(RateStrategy.aimd(2, 0.5)).build();
        assertThat(q.rate()).isEqualTo(10);
        for (int i = 0; i < 40; i++) {
            q.submit(task(millis(10), failAfter(ms(1000))));
        }
        time.runUntilIdle();
        assertThat(startsPerInterval(SECOND, 4)).containsExactly(10, 12, 6, 3);
        assertThat(changes).containsExactly(new Change(10, 12, ms(1000)), new Change(12, 6, ms(2000)),
                new Change(6, 3, ms(3000)), new Change(3, 1, ms(4000)));
        assertCountersMatch(q);
    }

    @Test
    void aimdDefaultsAreIncreaseByOneAndHalve() {
        RateObservation clean = new RateObservation(8, 1, 20, 8, 8, 0, 0, 5, 0, 1);
        RateObservation bad = new RateObservation(8, 1, 20, 8, 0, 5, 0, 5, 0, 1);
        RateObservation some = new RateObservation(8, 1, 20, 8, 4, 4, 0, 5, 0, 1);
        assertThat(RateStrategy.aimd().decide(clean)).isEqualTo(new RateDecision(9, false));
        assertThat(RateStrategy.aimd().decide(bad)).isEqualTo(new RateDecision(4, true));
        assertThat(RateStrategy.aimd().decide(some)).isEqualTo(RateDecision.hold(8));
        assertThat(RateStrategy.linear().decide(clean)).isEqualTo(new RateDecision(9, false));
        assertThat(RateStrategy.linear().decide(bad)).isEqualTo(new RateDecision(7, true));
        assertThat(RateStrategy.linear().decide(some)).isEqualTo(RateDecision.hold(8));
        RateObservation empty = new RateObservation(8, 1, 20, 0, 0, 0, 0, 5, 0, 1);
        assertThat(RateStrategy.linear().decide(empty)).isEqualTo(RateDecision.hold(8));
        assertThat(RateStrategy.aimd().decide(empty)).isEqualTo(RateDecision.hold(8));
    }

    @Test
    void intervalTimingDecidesOnWhatSettledInTheIntervalWheneverItStarted() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).rateStrategy(recording(RateStrategy.linear())).build();
        for (int i = 0; i < 10; i++) {
            q.submit(task(millis(1500)));
        }
        time.advance(Duration.ofMillis(2001));
        assertThat(observations).hasSize(2);
        assertThat(observations.get(0)).extracting(RateObservation::started, RateObservation::succeeded)
                .containsExactly(5, 0);
        assertThat(observations.get(1)).extracting(RateObservation::started, RateObservation::succeeded,
                RateObservation::windowStartNanos, RateObservation::windowEndNanos)
                .containsExactly(5, 3, ms(1000), ms(2000));
        assertThat(changes).containsExactly(new Change(5, 6, ms(2000)));
    }

    @Test
    void settledTimingHoldsStartsUntilTheWindowSettlesThenDecidesExactlyOnce() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).adjustmentTiming(AdjustmentTiming.SETTLED)
                .rateStrategy(recording(RateStrategy.linear())).build();
        for (int i = 0; i < 12; i++) {
            q.submit(task(millis(1500)));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(200), ms(400), ms(600), ms(800),
                ms(2300), 2_466_666_666L, 2_633_333_333L, ms(2800), 2_966_666_666L, 3_133_333_333L,
                4_633_333_333L);
        assertThat(changes).containsExactly(new Change(5, 6, ms(2300)), new Change(6, 7, 4_633_333_333L),
                new Change(7, 8, 6_133_333_333L));
        assertThat(observations).extracting(RateObservation::started, RateObservation::succeeded)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(5, 5), org.assertj.core.groups.Tuple.tuple(6, 6),
                        org.assertj.core.groups.Tuple.tuple(1, 1));
        assertCountersMatch(q);
    }

    @Test
    void settledTimingDecidesAtTheIntervalsEndWhenEverythingHasSettled() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).adjustmentTiming(AdjustmentTiming.SETTLED).build();
        for (int i = 0; i < 8; i++) {
            q.submit(task(millis(10)));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(200), ms(400), ms(600), ms(800),
                ms(1000), 1_166_666_666L, 1_333_333_333L);
        assertThat(changes).containsExactly(new Change(5, 6, ms(1000)), new Change(6, 7, ms(2000)));
    }

    @Test
    void settledTimingCountsFailuresOfItsOwnAttemptsOnly() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).errorsPerInterval(5)
                .adjustmentTiming(AdjustmentTiming.SETTLED).build();
        for (int i = 0; i < 5; i++) {
            q.submit(task(millis(1200), new IllegalStateException("slow failure")));
        }
        time.runUntilIdle();
        assertThat(changes).containsExactly(new Change(5, 4, ms(2000)));
        assertCountersMatch(q);
    }

    @Test
    void failuresTheRateClassifierLetsOffDoNotLowerTheRate() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).errorsPerInterval(1)
                .rateOutcomeClassifier((outcome, cause) -> cause instanceof IllegalStateException)
                .rateStrategy(recording(RateStrategy.linear())).build();
        for (int i = 0; i < 10; i++) {
            q.submit(task(millis(10), new IllegalArgumentException("client error")));
        }
        time.runUntilIdle();
        assertThat(changes).isEmpty();
        assertThat(observations.get(0)).extracting(RateObservation::failed, RateObservation::uncountedFailures)
                .containsExactly(0, 5);
        assertThat(q.state().failed()).isEqualTo(10);
    }

    @Test
    void aThrowingRateClassifierCountsTheFailure() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).errorsPerInterval(5)
                .rateOutcomeClassifier((outcome, cause) -> {
                    throw new IllegalStateException("broken classifier");
                }).build();
        for (int i = 0; i < 5; i++) {
            q.submit(task(millis(10), new IllegalArgumentException("x")));
        }
        time.runUntilIdle();
        assertThat(changes).containsExactly(new Change(5, 4, ms(1000)));
    }

    @Test
    void aThrowingStrategyHaltsTheQueueKeepsPendingTasksAndSurfacesTheError() {
        AtomicBoolean broken = new AtomicBoolean(true);
        IllegalStateException boom = new IllegalStateException("boom");
        ThrottledQueue q = builder(1, SECOND).maxRate(9).rateStrategy(o -> {
            if (broken.getAndSet(false)) {
                throw boom;
            }
            return RateStrategy.linear().decide(o);
        }).build();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            results.add(q.submit(task(millis(10))));
        }
        CompletableFuture<Void> idleBefore = q.awaitIdle();
        advanceTo(1000);
        QueueState halted = q.state();
        assertThat(halted.status()).isEqualTo(QueueStatus.STOPPED);
        assertThat(halted.haltCause()).isInstanceOf(RateStrategyException.class).hasCause(boom);
        assertThat(halted.pending()).isEqualTo(5);
        assertThat(time.pendingTasks()).as("a halted queue keeps no timer").isZero();
        assertThat(idleBefore).isCompletedExceptionally();
        assertThat(q.awaitIdle()).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class)
                .havingCause().isInstanceOf(RateStrategyException.class);
        advanceTo(11_000);
        assertThat(starts).hasSize(5);

        q.resume();
        assertThat(q.state().haltCause()).isNull();
        CompletableFuture<Void> idle = q.awaitIdle();
        time.runUntilIdle();
        assertThat(startTimes().subList(5, 10)).containsExactly(ms(11_000), ms(11_200), ms(11_400), ms(11_600),
                ms(11_800));
        assertThat(idle).isCompleted();
        assertThat(results).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
    }

    @Test
    void aStrategyReturningNoDecisionHaltsAndASubmitRestarts() {
        AtomicInteger calls = new AtomicInteger();
        ThrottledQueue q = builder(2, SECOND).rateStrategy(o -> calls.getAndIncrement() == 0 ? null
                : RateDecision.hold(o.rate())).build();
        for (int i = 0; i < 4; i++) {
            q.submit(task(millis(10)));
        }
        advanceTo(1500);
        assertThat(q.state().status()).isEqualTo(QueueStatus.STOPPED);
        assertThat(q.state().haltCause()).hasMessageContaining("returned no decision").hasNoCause();
        assertThat(q.pending()).isEqualTo(2);
        CompletableFuture<Object> late = q.submit(task(millis(10)));
        assertThat(q.state().status()).isEqualTo(QueueStatus.RUNNING);
        time.runUntilIdle();
        assertThat(late).isCompletedWithValue("ok");
        assertThat(startTimes()).containsExactly(0L, ms(500), ms(1500), ms(2000), ms(2500));
    }

    @Test
    void aDecisionOutsideTheBoundsIsClampedNotAnError() {
        AtomicInteger calls = new AtomicInteger();
        ThrottledQueue q = builder(2, SECOND).maxRate(6).rateStrategy(o ->
                new RateDecision(calls.getAndIncrement() % 2 == 0 ? 1000 : -7, false)).build();
        for (int i = 0; i < 20; i++) {
            q.submit(task(millis(10)));
        }
        time.runUntilIdle();
        assertThat(changes).startsWith(new Change(4, 6, ms(1000)), new Change(6, 2, ms(2000)),
                new Change(2, 6, ms(3000)));
        assertCountersMatch(q);
    }

    @Test
    void aFixedRateNeverMovesButStillBacksOff() {
        ThrottledQueue q = builder(3, SECOND).errorsPerInterval(1).backOff(true).build();
        for (int i = 0; i < 4; i++) {
            q.submit(task(millis(10), new IllegalStateException("down")));
        }
        time.runUntilIdle();
        assertThat(changes).isEmpty();
        assertThat(startTimes()).containsExactly(0L, 333_333_333L, 666_666_666L, ms(2000));
    }

    @Test
    void aThrowingRateListenerIsCountedAndTheOthersStillHear() {
        List<Integer> heard = new ArrayList<>();
        ThrottledQueue q = builder(1, SECOND).maxRate(3)
                .onRateChange((from, to, at) -> {
                    throw new IllegalStateException("listener bug");
                })
                .onRateChange((from, to, at) -> heard.add(to)).build();
        for (int i = 0; i < 6; i++) {
            q.submit(task(millis(10)));
        }
        time.runUntilIdle();
        assertThat(heard).containsExactly(3);
        assertThat(q.state().listenerFailures()).isEqualTo(1);
        assertThat(q.rate()).isEqualTo(3);
    }
}
