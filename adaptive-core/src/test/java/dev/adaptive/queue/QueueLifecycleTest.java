package dev.adaptive.queue;

import dev.adaptive.retry.Backoff;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Every transition of the lifecycle table, and what each does to pacing, retries and the rate. */
class QueueLifecycleTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @AfterEach
    void noTaskThrew() {
        assertNoUncaught();
    }

    @Test
    void pauseHoldsStartsLetsRunningTasksFinishAndResumeGivesFreshPacing() {
        ThrottledQueue q = builder(2, SECOND).build();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            results.add(q.submit(task(millis(100))));
        }
        advanceTo(550);
        q.pause();
        assertThat(q.state().status()).isEqualTo(QueueStatus.PAUSED);
        assertThat(q.state().active()).isEqualTo(1);
        advanceTo(5000);
        assertThat(results.get(1)).as("the task running at pause finished").isCompletedWithValue("ok");
        assertThat(starts).hasSize(2);
        assertThat(q.pending()).isEqualTo(3);
        assertThat(time.pendingTasks()).as("a paused queue keeps no timer").isZero();
        q.resume();
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(500), ms(5000), ms(5500), ms(6000));
        assertThat(results).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
    }

    @Test
    void outcomesThatSettleWhilePausedDoNotMoveTheRate() {
        ThrottledQueue q = builder(1, SECOND).maxRate(9).errorsPerInterval(1).build();
        q.submit(task(millis(300), new IllegalStateException("fails while paused")));
        advanceTo(100);
        q.pause();
        advanceTo(2000);
        assertThat(q.state().failed()).isEqualTo(1);
        q.resume();
        for (int i = 0; i < 5; i++) {
            q.submit(task(millis(10)));
        }
        time.runUntilIdle();
        assertThat(changes).containsExactly(new Change(5, 6, ms(3000)));
        assertThat(q.state().rateDecreases()).isZero();
    }

    @Test
    void pauseFreezesWhatRemainsOfADelayedRetry() {
        ThrottledQueue q = builder(10, SECOND).retries(1).retryBackoff(Backoff.constant(SECOND)).build();
        CompletableFuture<Object> r = q.submit(task(millis(100), new IllegalStateException("once"), "ok"));
        CompletableFuture<Void> idle = q.awaitIdle();
        advanceTo(500);
        q.pause();
        advanceTo(10_000);
        assertThat(q.state().delayedRetries()).isEqualTo(1);
        assertThat(starts).hasSize(1);
        assertThat(time.pendingTasks()).isZero();
        assertThat(idle).isNotDone();
        q.resume();
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(10_600));
        assertThat(r).isCompletedWithValue("ok");
        assertThat(idle).isCompleted();
    }

    @Test
    void aFailureWhilePausedWaitsItsWholeDelayAfterResume() {
        ThrottledQueue q = builder(10, SECOND).retries(1).retryBackoff(Backoff.constant(SECOND)).build();
        q.submit(task(millis(100), new IllegalStateException("once"), "ok"));
        advanceTo(50);
        q.pause();
        advanceTo(3000);
        assertThat(q.state().delayedRetries()).isEqualTo(1);
        q.resume();
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(4000));
    }

    @Test
    void stopClearsEveryTimerKeepsPendingWorkAndTheNextSubmitRestarts() {
        ThrottledQueue q = builder(1, SECOND).build();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            results.add(q.submit(task(millis(10))));
        }
        CompletableFuture<Void> idle = q.awaitIdle();
        advanceTo(500);
        q.stop();
        assertThat(q.state().status()).isEqualTo(QueueStatus.STOPPED);
        assertThat(time.pendingTasks()).isZero();
        assertThat(q.pending()).isEqualTo(2);
        advanceTo(10_000);
        assertThat(starts).hasSize(1);
        assertThat(idle).isNotDone();
        results.add(q.submit(task(millis(10))));
        assertThat(q.state().status()).isEqualTo(QueueStatus.RUNNING);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(10_000), ms(11_000), ms(12_000));
        assertThat(starts).extracting(Start::index).containsExactly(0L, 1L, 2L, 3L);
        assertThat(results).allSatisfy(f -> assertThat(f).isCompletedWithValue("ok"));
        assertThat(idle).isCompleted();
    }

    @Test
    void stopFreezesDelayedRetriesAndResumeRestartsThem() {
        ThrottledQueue q = builder(10, SECOND).retries(1).retryBackoff(Backoff.constant(SECOND)).build();
        CompletableFuture<Object> r = q.submit(task(millis(100), new IllegalStateException("once"), "ok"));
        advanceTo(400);
        q.stop();
        assertThat(time.pendingTasks()).isZero();
        advanceTo(5000);
        q.resume();
        assertThat(q.state().status()).isEqualTo(QueueStatus.RUNNING);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(5700));
        assertThat(r).isCompletedWithValue("ok");
    }

    @Test
    void abortFailsAllUnfinishedWorkSignalsRunningTasksAndIgnoresLaterSettlements() {
        ThrottledQueue q = builder(2, SECOND).retries(1).retryBackoff(Backoff.constant(Duration.ofSeconds(2))).build();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        results.add(q.submit(task(SECOND, new IllegalStateException("would be retried"))));
        results.add(q.submit(task(millis(10), new IllegalStateException("once"), "ok")));
        for (int i = 0; i < 3; i++) {
            results.add(q.submit(task(millis(10))));
        }
        advanceTo(600);
        QueueState before = q.state();
        assertThat(before).extracting(QueueState::active, QueueState::delayedRetries, QueueState::pending)
                .containsExactly(1, 1, 3);

        q.abort();
        assertThat(results).allSatisfy(f -> assertThat(f).failsWithin(Duration.ZERO)
                .withThrowableOfType(Exception.class).havingCause().isInstanceOf(QueueAbortedException.class));
        assertThat(contexts.get(0).cancellation().isCancelled()).isTrue();
        assertThat(contexts.get(0).cancellation().reason()).isInstanceOf(QueueAbortedException.class);
        assertThat(q.awaitIdle()).isCompleted();
        QueueState aborted = q.state();
        assertThat(aborted.status()).isEqualTo(QueueStatus.ABORTED);
        assertThat(aborted.idle()).isTrue();

        time.runUntilIdle(); // the running task answers at 1 s; its failure would have been retried
        QueueState after = q.state();
        assertThat(after).extracting(QueueState::started, QueueState::succeeded, QueueState::failed,
                QueueState::retried).containsExactly(before.started(), before.succeeded(), before.failed(),
                before.retried());
        assertThat(starts).hasSize(2);
        assertThat(time.pendingTasks()).isZero();

        assertThat(q.submit(task(millis(10)))).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class)
                .havingCause().isInstanceOf(QueueAbortedException.class);
        q.resume();
        q.pause();
        q.stop();
        q.abort();
        assertThat(q.state().status()).isEqualTo(QueueStatus.ABORTED);
    }

    @Test
    void awaitIdleIsNeverTransientlyIdleBetweenAFailureAndItsDelayedRetry() {
        ThrottledQueue q = builder(10, SECOND).retries(1).retryBackoff(Backoff.constant(millis(500))).build();
        q.submit(task(millis(100), new IllegalStateException("once"), "ok"));
        AtomicLong idleAt = new AtomicLong(-1);
        q.awaitIdle().thenRun(() -> idleAt.set(time.nanoTime()));
        advanceTo(101);
        QueueState between = q.state();
        assertThat(between).extracting(QueueState::active, QueueState::delayedRetries, QueueState::idle)
                .containsExactly(0, 1, false);
        assertThat(idleAt).hasValue(-1);
        time.runUntilIdle();
        assertThat(idleAt).hasValue(ms(700));
    }

    @Test
    void awaitIdleIsNeverTransientlyIdleWhileARetryWaitsForItsSlot() {
        ThrottledQueue q = builder(1, SECOND).retries(1).build();
        q.submit(task(millis(100), new IllegalStateException("once"), "ok"));
        AtomicLong idleAt = new AtomicLong(-1);
        q.awaitIdle().thenRun(() -> idleAt.set(time.nanoTime()));
        advanceTo(500);
        assertThat(q.state()).extracting(QueueState::pending, QueueState::active, QueueState::idle)
                .containsExactly(1, 0, false);
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(1000));
        assertThat(idleAt).hasValue(ms(1100));
    }

    @Test
    void awaitIdleCompletesAtOnceWhenIdleAndWaitsWhilePausedWork() {
        ThrottledQueue q = builder(1, SECOND).build();
        assertThat(q.awaitIdle()).isCompleted();
        q.pause();
        q.submit(task(millis(10)));
        CompletableFuture<Void> idle = q.awaitIdle();
        advanceTo(5000);
        assertThat(idle).isNotDone();
        q.resume();
        time.runUntilIdle();
        assertThat(idle).isCompleted();
    }

    @ParameterizedTest
    @EnumSource(QueueStatus.class)
    void transitionTable(QueueStatus from) {
        assertThat(after(from, ThrottledQueue::pause)).isEqualTo(switch (from) {
            case RUNNING, PAUSED -> QueueStatus.PAUSED;
            case STOPPED -> QueueStatus.STOPPED;
            case ABORTED -> QueueStatus.ABORTED;
        });
        assertThat(after(from, ThrottledQueue::resume)).isEqualTo(
                from == QueueStatus.ABORTED ? QueueStatus.ABORTED : QueueStatus.RUNNING);
        assertThat(after(from, ThrottledQueue::stop)).isEqualTo(
                from == QueueStatus.ABORTED ? QueueStatus.ABORTED : QueueStatus.STOPPED);
        assertThat(after(from, ThrottledQueue::abort)).isEqualTo(QueueStatus.ABORTED);
        assertThat(after(from, queue -> queue.submit(task(millis(10))))).isEqualTo(switch (from) {
            case RUNNING, STOPPED -> QueueStatus.RUNNING;
            case PAUSED -> QueueStatus.PAUSED;
            case ABORTED -> QueueStatus.ABORTED;
        });
    }

    private QueueStatus after(QueueStatus from, java.util.function.Consumer<ThrottledQueue> call) {
        ThrottledQueue q = builder(1, SECOND).build();
        switch (from) {
            case RUNNING -> { }
            case PAUSED -> q.pause();
            case STOPPED -> q.stop();
            case ABORTED -> q.abort();
        }
        assertThat(q.state().status()).isEqualTo(from);
        call.accept(q);
        return q.state().status();
    }
}
