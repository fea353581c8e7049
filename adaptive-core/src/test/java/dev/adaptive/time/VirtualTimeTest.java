package dev.adaptive.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VirtualTimeTest {

    private final VirtualTime time = new VirtualTime();
    private final List<String> log = new ArrayList<>();

    private Runnable record(String name) {
        return () -> log.add(name + "@" + time.nanoTime());
    }

    @Test
    void startsWhereToldAndReportsElapsed() {
        VirtualTime fromNegative = new VirtualTime(-50);
        assertThat(time.nanoTime()).isZero();
        assertThat(fromNegative.nanoTime()).isEqualTo(-50);

        fromNegative.advance(Duration.ofNanos(80));

        assertThat(fromNegative.nanoTime()).isEqualTo(30);
        assertThat(fromNegative.elapsed()).isEqualTo(Duration.ofNanos(80));
    }

    @Test
    void elapsedDoesNotOverflowAcrossTheWholeRange() {
        VirtualTime extreme = new VirtualTime(Long.MIN_VALUE);
        extreme.advanceTo(Long.MAX_VALUE);
        assertThat(extreme.elapsed()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE).plusNanos(Long.MAX_VALUE).plusNanos(1));
    }

    @Test
    void zeroAndNegativeDelaysAreDueNowButNeverRunInline() {
        time.schedule(record("zero"), 0);
        time.schedule(record("negative"), -5);

        assertThat(log).isEmpty();
        assertThat(time.pendingTasks()).isEqualTo(2);
        assertThat(time.runDue()).isEqualTo(2);
        assertThat(log).containsExactly("zero@0", "negative@0");
    }

    @Test
    void tasksDueAtTheSameInstantRunInSchedulingOrder() {
        time.schedule(record("a"), 10);
        time.schedule(record("b"), 5);
        time.schedule(record("c"), 10);
        time.schedule(record("d"), 5);
        time.schedule(record("e"), 10);

        time.advance(Duration.ofNanos(10));

        assertThat(log).containsExactly("b@5", "d@5", "a@10", "c@10", "e@10");
    }

    @Test
    void advanceStopsAtEachDueInstantAndEndsAtTheTarget() {
        time.schedule(record("a"), 3);
        time.schedule(record("b"), 7);
        time.schedule(record("late"), 11);

        time.advance(Duration.ofNanos(10));

        assertThat(log).containsExactly("a@3", "b@7");
        assertThat(time.nanoTime()).isEqualTo(10);
        assertThat(time.pendingTasks()).isEqualTo(1);
        assertThat(time.nextDueNanos()).hasValue(11);
    }

    @Test
    void advanceRunsWhatIsDueAtTheTargetIncludingWhatThoseTasksScheduleNow() {
        time.schedule(() -> {
            log.add("outer@" + time.nanoTime());
            time.schedule(record("inner"), 0);
            time.schedule(record("later"), 1);
        }, 10);

        time.advanceTo(10);

        assertThat(log).containsExactly("outer@10", "inner@10");
        assertThat(time.pendingTasks()).isEqualTo(1);
    }

    @Test
    void tasksScheduledByTasksRunAtTheirOwnDueTimeWithinOneAdvance() {
        time.schedule(() -> {
            log.add("first@" + time.nanoTime());
            time.schedule(record("second"), 4);
        }, 2);

        time.advance(Duration.ofNanos(100));

        assertThat(log).containsExactly("first@2", "second@6");
        assertThat(time.nanoTime()).isEqualTo(100);
    }

    @Test
    void runDueDoesNotMoveTheClock() {
        time.schedule(record("future"), 1);

        assertThat(time.runDue()).isZero();
        assertThat(time.nanoTime()).isZero();
        assertThat(log).isEmpty();
    }

    @Test
    void runNextJumpsToTheNextTask() {
        time.schedule(record("a"), 20);
        time.schedule(record("b"), 30);

        assertThat(time.runNext()).isTrue();
        assertThat(log).containsExactly("a@20");
        assertThat(time.nanoTime()).isEqualTo(20);
        assertThat(time.runNext()).isTrue();
        assertThat(time.runNext()).isFalse();
        assertThat(time.nextDueNanos()).isEmpty();
    }

    @Test
    void runUntilIdleRunsEverythingIncludingFollowUps() {
        time.schedule(() -> {
            log.add("a@" + time.nanoTime());
            time.schedule(record("b"), Duration.ofSeconds(1));
        }, Duration.ofMillis(5));

        assertThat(time.runUntilIdle()).isEqualTo(2);
        assertThat(log).containsExactly("a@5000000", "b@1005000000");
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void runUntilIdleGivesUpOnAPeriodicTask() {
        AtomicInteger ticks = new AtomicInteger();
        Runnable[] periodic = new Runnable[1];
        periodic[0] = () -> {
            ticks.incrementAndGet();
            time.schedule(periodic[0], 1);
        };
        time.schedule(periodic[0], 1);

        assertThatThrownBy(() -> time.runUntilIdle(100))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("100");
        assertThat(ticks).hasValue(100);
        assertThat(time.pendingTasks()).isEqualTo(1);
    }

    @Test
    void constructorBoundAppliesToRunUntilIdle() {
        VirtualTime bounded = new VirtualTime(0, 3);
        for (int i = 0; i < 4; i++) {
            bounded.schedule(() -> { }, i);
        }
        assertThatThrownBy(bounded::runUntilIdle).isInstanceOf(IllegalStateException.class);
        assertThat(bounded.pendingTasks()).isEqualTo(1);
    }

    @Test
    void runDueGivesUpOnATaskReschedulingItselfAtTheSameInstant() {
        VirtualTime bounded = new VirtualTime(0, 50);
        Runnable[] spinning = new Runnable[1];
        spinning[0] = () -> bounded.schedule(spinning[0], 0);
        bounded.schedule(spinning[0], 0);

        assertThatThrownBy(bounded::runDue).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void advanceBoundCountsPerInstantNotPerCall() {
        VirtualTime bounded = new VirtualTime(0, 2);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 1; i <= 10; i++) {
            bounded.schedule(ran::incrementAndGet, i);
        }

        bounded.advance(Duration.ofNanos(10));

        assertThat(ran).hasValue(10);
    }

    @Test
    void cancelledTasksNeverRunAndAreNotPending() {
        Cancellable a = time.schedule(record("a"), 5);
        time.schedule(record("b"), 5);

        assertThat(a.cancel()).isTrue();
        assertThat(a.cancel()).isFalse();
        assertThat(time.pendingTasks()).isEqualTo(1);

        time.advance(Duration.ofNanos(5));
        assertThat(log).containsExactly("b@5");
    }

    @Test
    void cancelAfterRunReturnsFalse() {
        Cancellable a = time.schedule(record("a"), 0);
        time.runDue();
        assertThat(a.cancel()).isFalse();
    }

    @Test
    void aTaskCanCancelAnotherDueAtTheSameInstant() {
        Cancellable[] victim = new Cancellable[1];
        time.schedule(() -> victim[0].cancel(), 5);
        victim[0] = time.schedule(record("victim"), 5);

        assertThat(time.runUntilIdle()).isEqualTo(1);
        assertThat(log).isEmpty();
    }

    @Test
    void aThrowingTaskIsRecordedAndTheOthersStillRun() {
        IllegalStateException boom = new IllegalStateException("boom");
        time.schedule(record("before"), 1);
        time.schedule(() -> {
            throw boom;
        }, 1);
        time.schedule(record("after"), 1);

        assertThat(time.runUntilIdle()).isEqualTo(3);
        assertThat(log).containsExactly("before@1", "after@1");
        assertThat(time.uncaught()).containsExactly(boom);
    }

    @Test
    void uncaughtIsASnapshot() {
        assertThat(time.uncaught()).isEmpty();
        assertThatThrownBy(() -> time.uncaught().add(new RuntimeException()))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void hugeDelaysSaturateInsteadOfWrapping() {
        VirtualTime late = new VirtualTime(10);
        AtomicInteger ran = new AtomicInteger();
        late.schedule(ran::incrementAndGet, Long.MAX_VALUE);
        late.schedule(ran::incrementAndGet, Duration.ofDays(365L * 1_000_000));

        late.advance(Duration.ofDays(365L * 200));

        assertThat(ran).hasValue(0);
        assertThat(late.nextDueNanos()).hasValue(Long.MAX_VALUE);
        assertThat(late.pendingTasks()).isEqualTo(2);
    }

    @Test
    void advanceSaturatesAtTheEndOfTime() {
        VirtualTime late = new VirtualTime(Long.MAX_VALUE - 1);
        late.advance(Duration.ofDays(1));
        assertThat(late.nanoTime()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void timeNeverGoesBackwards() {
        time.advance(Duration.ofNanos(10));

        assertThatThrownBy(() -> time.advanceTo(9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("targetNanos")
                .hasMessageContaining("9");
        assertThatThrownBy(() -> time.advance(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delta");
    }

    @Test
    void badBoundsAreRejected() {
        assertThatThrownBy(() -> new VirtualTime(0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxTasksPerCall must be > 0: 0");
        assertThatThrownBy(() -> time.runUntilIdle(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void clockViewFollowsVirtualTime() {
        Instant epoch = Instant.parse("2024-05-01T12:00:00Z");
        var clock = time.clock(epoch);

        assertThat(clock.instant()).isEqualTo(epoch);
        time.advance(Duration.ofSeconds(90));
        assertThat(clock.instant()).isEqualTo(epoch.plusSeconds(90));
        assertThat(clock.millis()).isEqualTo(epoch.plusSeconds(90).toEpochMilli());
        assertThat(clock.withZone(ZoneId.of("Europe/Paris")).instant()).isEqualTo(epoch.plusSeconds(90));
    }
}
