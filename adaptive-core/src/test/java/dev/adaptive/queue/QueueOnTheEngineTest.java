package dev.adaptive.queue;

import dev.adaptive.RateLimitedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.Backoff;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the queue keeps now that its attempts go through the engine's limiter and executor: a
 * freed slot goes to a retry before a fresh task, and never to the next task once one threw
 * StopPoolException; a withdrawn task takes no pacing slot; a held queue leaves the engine no
 * wake-up of the gate's; a Retry-After is one pause, the limiter's.
 */
class QueueOnTheEngineTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @AfterEach
    void noTaskThrew() {
        assertNoUncaught();
    }

    @Test
    void aSlotFreedByAFailureGoesToItsRetryBeforeAFreshTaskThatWasDue() {
        ThrottledQueue q = builder(1000, SECOND).concurrency(1).retries(1).build();
        q.submit(task(millis(10), new IllegalStateException("once"), "ok"));
        q.submit(task(millis(10)));
        time.runUntilIdle();
        // The fresh task's slot came due at 1 ms while the first one held the only slot.
        assertThat(starts).extracting(Start::index, Start::attempt)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 1), org.assertj.core.groups.Tuple.tuple(0L, 2),
                        org.assertj.core.groups.Tuple.tuple(1L, 1));
        assertThat(startTimes()).containsExactly(0L, ms(10), ms(20));
    }

    @Test
    void aSlotFreedByAStopPoolExceptionGoesToNobody() {
        // The second task is due at 1 ms and the one slot frees at 10 ms: it is never called.
        ThrottledQueue q = builder(1000, SECOND).concurrency(1).build();
        q.submit(task(millis(10), new StopPoolException("credentials revoked")));
        q.submit(task(millis(10)));
        time.runUntilIdle();
        assertThat(starts).extracting(Start::index).containsExactly(0L);
        assertThat(q.state()).extracting(QueueState::status, QueueState::started, QueueState::failed)
                .containsExactly(QueueStatus.ABORTED, 1L, 1L);
    }

    @Test
    void aStopPoolExceptionFromATaskItsCallerWithdrewStopsNothing() {
        ThrottledQueue q = builder(1000, SECOND).concurrency(1).build();
        CompletableFuture<Object> first = q.submit(task(millis(10), new StopPoolException("late")));
        CompletableFuture<Object> second = q.submit(task(millis(10)));
        advanceTo(5);
        first.cancel(false);
        time.runUntilIdle();
        assertThat(second).isCompletedWithValue("ok");
        assertThat(q.state().status()).isEqualTo(QueueStatus.RUNNING);
    }

    @Test
    void aWithdrawnPendingTaskTakesNoPacingSlot() {
        ThrottledQueue q = builder(1, SECOND).build();
        q.submit(task(millis(10)));
        CompletableFuture<Object> withdrawn = q.submit(task(millis(10)));
        q.submit(task(millis(10)));
        advanceTo(500);
        withdrawn.cancel(false);
        assertThat(q.pending()).isEqualTo(1);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(1000));
        assertThat(starts).extracting(Start::index).containsExactly(0L, 2L);
    }

    @Test
    void aHeldQueueLeavesNoWakeUpForItsNextSlot() {
        ThrottledQueue q = builder(2, SECOND).build();
        for (int i = 0; i < 3; i++) {
            q.submit(task(millis(10)));
        }
        advanceTo(100);
        assertThat(time.pendingTasks()).as("the next slot's wake-up and the window's end").isEqualTo(2);
        q.pause();
        assertThat(time.pendingTasks()).isZero();
        q.resume();
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(100), ms(600));
    }

    @Test
    void aRetryAfterIsOnePauseTheLimitersAndItHoldsAConcurrencyLimitedQueueToo() {
        ThrottledQueue q = builder(10, SECOND).concurrencyLimit(FixedLimit.of(3)).build();
        q.submit(task(millis(50), new RateLimitedException(SECOND), "ok"));
        q.submit(task(millis(10)));
        advanceTo(60);
        assertThat(q.state().holdUntilNanos()).hasValue(ms(1050));
        time.runUntilIdle();
        // The fresh task's slot at 100 ms fell inside the pause: the retry goes first at its end.
        assertThat(startTimes()).containsExactly(0L, ms(1050), ms(1150));
        assertThat(starts).extracting(Start::index).containsExactly(0L, 0L, 1L);
        assertThat(events).filteredOn(TraceEvent.RatePause.class::isInstance).hasSize(1);
        assertThat(q.state()).extracting(QueueState::succeeded, QueueState::failed, QueueState::retried)
                .containsExactly(2L, 1L, 1L);
    }

    @Test
    void aBackoffWhileStoppedWaitsWhatItHadLeftAfterTheRestart() {
        ThrottledQueue q = builder(10, SECOND).retries(1).retryBackoff(Backoff.constant(millis(400))).build();
        q.submit(task(millis(100), new IllegalStateException("once"), "ok"));
        advanceTo(300); // 200 ms of 400 left
        q.stop();
        assertThat(time.pendingTasks()).isZero();
        advanceTo(5000);
        q.resume();
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(5200));
    }
}
