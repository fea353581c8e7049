package dev.adaptive.queue;

import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.Scheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Where starts go, to the exact virtual instant. */
class QueuePacingTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @AfterEach
    void noTaskThrew() {
        assertNoUncaught();
    }

    @Test
    void evenlySpacedStartsAreIntervalOverRateApart() {
        ThrottledQueue q = builder(5, SECOND).build();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            results.add(q.submit(task(Duration.ZERO)));
        }
        time.runUntilIdle();
        List<Long> expected = new ArrayList<>();
        for (int k = 0; k < 12; k++) {
            expected.add(ms(200 * k));
        }
        assertThat(startTimes()).containsExactlyElementsOf(expected);
        assertThat(results).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
        assertThat(starts).extracting(Start::index).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
    }

    @Test
    void slotsThatDoNotDivideEvenlyNeverDrift() {
        ThrottledQueue q = builder(3, SECOND).build();
        for (int i = 0; i < 7; i++) {
            q.submit(task(Duration.ZERO));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, 333_333_333L, 666_666_666L, 1_000_000_000L,
                1_333_333_333L, 1_666_666_666L, 2_000_000_000L);
    }

    @Test
    void burstsStartUpToRateAtTheStartOfEachInterval() {
        ThrottledQueue q = builder(3, SECOND).evenlySpaced(false).build();
        for (int i = 0; i < 8; i++) {
            q.submit(task(millis(10)));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, 0L, 0L, ms(1000), ms(1000), ms(1000), ms(2000), ms(2000));
    }

    @Test
    void aBurstWindowOpensAtTheFirstStartAndKeepsItsBudget() {
        ThrottledQueue q = builder(2, SECOND).evenlySpaced(false).build();
        q.submit(task(Duration.ZERO));
        advanceTo(500);
        q.submit(task(Duration.ZERO));
        q.submit(task(Duration.ZERO));
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(500), ms(1000));
    }

    @Test
    void anIdleQueueStartsANewArrivalAtOnceAndNeverMakesUpLostSlots() {
        ThrottledQueue q = builder(5, SECOND).build();
        q.submit(task(Duration.ZERO));
        advanceTo(5050);
        q.submit(task(Duration.ZERO));
        q.submit(task(Duration.ZERO));
        q.submit(task(Duration.ZERO));
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(5050), ms(5250), ms(5450));
    }

    /**
     * Regression: a real scheduler wakes up a little late, and each late start used to restart
     * the spacing, so 100 per second ran at about 87 per second. Timers here fire 1.5 ms late.
     */
    @Test
    void lateTimersNeitherSlowTheRateNorLetAnyIntervalHoldMoreThanRateStarts() {
        long lateness = ms(1.5);
        Scheduler late = (task, delayNanos) -> time.schedule(task, Math.max(0, delayNanos) + lateness);
        ThrottledQueue q = ThrottledQueue.builder().minRate(100).interval(SECOND).ticker(time).scheduler(late).build();
        int n = 1000;
        for (int i = 0; i < n; i++) {
            q.submit(task(Duration.ZERO));
        }
        time.runUntilIdle();
        List<Long> at = startTimes();
        assertThat(at).hasSize(n);
        // Ten rounds of 100: the lateness is absorbed once per round, not once per start.
        assertThat(at.get(n - 1)).isBetween(ms(9990), ms(9990 + 10 * 1.5 + 1.5));
        for (int i = 0; i + 100 < n; i++) {
            assertThat(at.get(i + 100) - at.get(i)).as("start %d and the 100th after it", i)
                    .isGreaterThanOrEqualTo(SECOND.toNanos());
        }
    }

    @Test
    void aStartLateByMoreThanOneSlotBeginsANewGrid() {
        ThrottledQueue q = builder(10, SECOND).build();
        q.submit(task(Duration.ZERO));
        advanceTo(150); // slot 1 was at 100 ms: 50 ms late is within one slot, so the grid holds
        q.submit(task(Duration.ZERO));
        q.submit(task(Duration.ZERO));
        advanceTo(600); // slot 3 was at 300 ms: 300 ms late, a new grid starts here
        q.submit(task(Duration.ZERO));
        q.submit(task(Duration.ZERO));
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(150), ms(200), ms(600), ms(700));
    }

    @Test
    void concurrencyBoundsRunningTasksAndALateStartRestartsTheSpacing() {
        ThrottledQueue q = builder(10, SECOND).concurrency(2).build();
        for (int i = 0; i < 5; i++) {
            q.submit(task(SECOND));
        }
        advanceTo(150);
        assertThat(q.state().active()).isEqualTo(2);
        assertThat(q.pending()).isEqualTo(3);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(100), ms(1000), ms(1100), ms(2000));
    }

    @Test
    void aFixedConcurrencyLimitActsOnTopOfTheRate() {
        ThrottledQueue q = builder(10, SECOND).concurrencyLimit(FixedLimit.of(2)).build();
        assertThat(q.state().concurrencyLimit()).isEqualTo(2);
        for (int i = 0; i < 5; i++) {
            q.submit(task(SECOND));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(100), ms(1000), ms(1100), ms(2000));
        assertThat(q.state().active()).isZero();
    }

    @Test
    void theLowerOfConcurrencyAndTheAdaptiveLimitWins() {
        ThrottledQueue q = builder(10, SECOND).concurrency(3).concurrencyLimit(FixedLimit.of(5)).build();
        assertThat(q.state().concurrencyLimit()).isEqualTo(3);
    }

    @Test
    void anAdaptiveConcurrencyLimitShrinksOnFailuresWhileTheRateHoldsItsPace() {
        Aimd aimd = Aimd.builder().initialLimit(8).minLimit(1).maxLimit(8).decreaseFactor(0.5).build();
        ThrottledQueue q = builder(20, SECOND).concurrencyLimit(aimd).build();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            results.add(q.submit(task(millis(10), new IllegalStateException("down"))));
        }
        time.runUntilIdle();
        assertThat(q.state().concurrencyLimit()).isLessThan(8);
        assertThat(results).allSatisfy(f -> assertThat(f).isCompletedExceptionally());
        // The limit never bit here: one task at a time, 50 ms apart.
        assertThat(startTimes()).containsExactly(0L, ms(50), ms(100), ms(150), ms(200), ms(250));
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(dev.adaptive.trace.TraceEvent.ConcurrencyChange.class));
    }

    @Test
    void anAdaptiveLimitOfOneSerialisesSlowTasks() {
        Aimd aimd = Aimd.builder().initialLimit(1).minLimit(1).maxLimit(1).build();
        ThrottledQueue q = builder(100, SECOND).concurrencyLimit(aimd).build();
        for (int i = 0; i < 3; i++) {
            q.submit(task(millis(300)));
        }
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(300), ms(600));
    }
}
