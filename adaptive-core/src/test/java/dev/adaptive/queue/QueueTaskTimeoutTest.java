package dev.adaptive.queue;

import dev.adaptive.limit.Outcome;
import dev.adaptive.TaskContext;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.Backoff;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-attempt task timeout: a hung task frees its slot, fails or retries, and is then ignored. */
class QueueTaskTimeoutTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = millis(500);

    @AfterEach
    void noTaskThrew() {
        assertNoUncaught();
    }

    /** 1000 per second: pacing never holds a start back, so start times show the timeout alone. */
    private ThrottledQueueBuilder fast() {
        return builder(1000, SECOND).taskTimeout(TIMEOUT);
    }

    private static void failsWithTimeout(CompletableFuture<?> f) {
        assertThat(f).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOf(TaskTimeoutException.class);
    }

    @Test
    void aHungTaskFreesItsSlotAtExactlyTheTimeoutAndFailsWithTaskTimeoutException() {
        ThrottledQueue q = fast().concurrency(1).build();
        List<Long> cancelledAt = new ArrayList<>();
        CompletableFuture<Object> hung = q.submit(ctx -> {
            ctx.cancellation().onCancel(() -> cancelledAt.add(time.nanoTime()));
            return task(Duration.ZERO, HANG).call(ctx);
        });
        CompletableFuture<Object> next = q.submit(task(millis(10)));

        advanceTo(499.999);
        assertThat(hung).isNotDone();
        assertThat(q.state().active()).isEqualTo(1);
        advanceTo(500);
        failsWithTimeout(hung);
        assertThat(hung).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class)
                .withMessageContaining("timed out after PT0.5S");
        assertThat(cancelledAt).containsExactly(ms(500));
        assertThat(contexts.get(0).cancellation().reason()).isInstanceOf(TaskTimeoutException.class);
        assertThat(startTimes()).containsExactly(0L, ms(500)); // the freed slot went to the next task at once

        time.runUntilIdle();
        assertThat(next).isCompletedWithValue("ok");
        assertThat(contexts.get(1).cancellation().isCancelled()).isFalse(); // each attempt has its own signal
        assertThat(q.state()).extracting(QueueState::started, QueueState::succeeded, QueueState::failed,
                QueueState::retried, QueueState::active).containsExactly(2L, 1L, 1L, 0L, 0);
        assertThat(q.state().idle()).isTrue();
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void aTimedOutAttemptIsRetriedWithinTheBudgetLikeAnyFailure() {
        ThrottledQueue q = fast().retries(2).retryBackoff(Backoff.constant(millis(100))).build();
        CompletableFuture<Object> r = q.submit(task(millis(10), HANG, HANG, "ok"));
        time.runUntilIdle();

        assertThat(r).isCompletedWithValue("ok");
        assertThat(starts).extracting(Start::attempt).containsExactly(1, 2, 3);
        assertThat(startTimes()).containsExactly(0L, ms(600), ms(1200));
        assertThat(q.state()).extracting(QueueState::started, QueueState::succeeded, QueueState::failed,
                QueueState::retried, QueueState::active, QueueState::delayedRetries)
                .containsExactly(3L, 1L, 2L, 2L, 0, 0);
        List<TraceEvent.TaskEnd> ends = events.stream().filter(TraceEvent.TaskEnd.class::isInstance)
                .map(TraceEvent.TaskEnd.class::cast).toList();
        assertThat(ends).extracting(TraceEvent.TaskEnd::outcome)
                .containsExactly(Outcome.DROPPED, Outcome.DROPPED, Outcome.SUCCESS);
        assertThat(ends.get(0).error()).isInstanceOf(TaskTimeoutException.class);
        assertThat(ends.get(0).rttNanos()).isEqualTo(ms(500));
        assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).hasSize(2);
    }

    @Test
    void whenRetriesRunOutTheFutureFailsWithTheLastTimeout() {
        ThrottledQueue q = fast().retries(1).build();
        CompletableFuture<Object> r = q.submit(task(Duration.ZERO, HANG));
        advanceTo(999);
        assertThat(r).isNotDone();
        advanceTo(1000);
        failsWithTimeout(r);
        assertThat(startTimes()).containsExactly(0L, ms(500));
        assertThat(q.state()).extracting(QueueState::started, QueueState::failed, QueueState::retried)
                .containsExactly(2L, 2L, 1L);
    }

    @Test
    void aLateCompletionOfATimedOutAttemptChangesNothing() {
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        ThrottledQueue q = fast().retries(1).concurrency(1).build();
        CompletableFuture<Object> r = q.submit(ctx -> {
            contexts.add(ctx);
            CompletableFuture<Object> reply = new CompletableFuture<>();
            replies.add(reply);
            return reply;
        });
        advanceTo(500);
        assertThat(replies).hasSize(2); // attempt 1 timed out, attempt 2 runs
        QueueState before = q.state();

        replies.get(0).complete("late success");
        replies.get(0).obtrudeException(new IllegalStateException("late failure"));
        assertThat(q.state()).usingRecursiveComparison().isEqualTo(before);
        assertThat(r).isNotDone();

        advanceTo(1000);
        failsWithTimeout(r);
        replies.get(1).complete("late too");
        time.runUntilIdle();
        QueueState end = q.state();
        assertThat(end).extracting(QueueState::started, QueueState::succeeded, QueueState::failed,
                QueueState::retried, QueueState::active).containsExactly(2L, 0L, 2L, 1L, 0);
        assertThat(events).filteredOn(TraceEvent.TaskEnd.class::isInstance).hasSize(2);
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void anAnswerBeforeTheTimeoutCancelsItsTimer() {
        ThrottledQueue q = fast().build();
        CompletableFuture<Object> r = q.submit(task(millis(499)));
        advanceTo(499);
        assertThat(r).isCompletedWithValue("ok");
        time.runUntilIdle();
        assertThat(contexts.get(0).cancellation().isCancelled()).isFalse();
        assertThat(q.state()).extracting(QueueState::succeeded, QueueState::failed).containsExactly(1L, 0L);
    }

    @Test
    void aTimeoutReleasesTheConcurrencyLimitersLease() {
        ThrottledQueue q = fast().concurrencyLimit(FixedLimit.of(1)).build();
        CompletableFuture<Object> hung = q.submit(task(Duration.ZERO, HANG));
        CompletableFuture<Object> next = q.submit(task(millis(10)));
        advanceTo(500);
        failsWithTimeout(hung);
        assertThat(startTimes()).containsExactly(0L, ms(500));
        time.runUntilIdle();
        assertThat(next).isCompletedWithValue("ok");
    }

    @Test
    void timeoutsCountAgainstTheRate() {
        ThrottledQueue q = builder(5, SECOND).maxRate(9).errorsPerInterval(2).taskTimeout(millis(300)).build();
        assertThat(q.rate()).isEqualTo(7);
        List<CompletableFuture<Object>> results = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            results.add(q.submit(task(Duration.ZERO, HANG)));
        }
        advanceTo(1000);
        results.forEach(QueueTaskTimeoutTest::failsWithTimeout);
        assertThat(changes).containsExactly(new Change(7, 6, ms(1000)));
    }

    @Test
    void theTimeoutKeepsRunningWhileTheQueueIsStoppedAndTheRetryWaitsForResume() {
        ThrottledQueue q = fast().retries(1).build();
        CompletableFuture<Object> r = q.submit(task(millis(10), HANG, "ok"));
        advanceTo(100);
        q.stop();
        assertThat(time.pendingTasks()).isEqualTo(1); // the running attempt's timeout, nothing else
        advanceTo(500);
        assertThat(q.state()).extracting(QueueState::active, QueueState::failed, QueueState::retried, QueueState::pending)
                .containsExactly(0, 1L, 1L, 1);
        assertThat(r).isNotDone();
        advanceTo(2000);
        assertThat(starts).hasSize(1);
        q.resume();
        time.runUntilIdle();
        assertThat(startTimes()).containsExactly(0L, ms(2000));
        assertThat(r).isCompletedWithValue("ok");
    }

    @Test
    void aWithdrawnTaskStillFreesItsSlotAtTheTimeoutAndIsNotRetried() {
        ThrottledQueue q = fast().retries(3).concurrency(1).build();
        CompletableFuture<Object> hung = q.submit(task(Duration.ZERO, HANG));
        CompletableFuture<Object> next = q.submit(task(millis(10)));
        advanceTo(100);
        hung.cancel(false);
        advanceTo(500);
        assertThat(startTimes()).containsExactly(0L, ms(500));
        time.runUntilIdle();
        assertThat(next).isCompletedWithValue("ok");
        assertThat(q.state()).extracting(QueueState::started, QueueState::retried).containsExactly(2L, 0L);
    }

    @Test
    void abortCancelsPendingTimeoutsAndSignalsWithTheAbortCause() {
        ThrottledQueue q = fast().build();
        CompletableFuture<Object> r = q.submit(task(Duration.ZERO, HANG));
        advanceTo(100);
        q.abort();
        assertThat(r).failsWithin(Duration.ZERO).withThrowableOfType(Exception.class).havingCause()
                .isInstanceOf(QueueAbortedException.class);
        TaskContext ctx = contexts.get(0);
        assertThat(ctx.cancellation().reason()).isInstanceOf(QueueAbortedException.class);
        QueueState aborted = q.state();
        time.runUntilIdle();
        assertThat(q.state()).usingRecursiveComparison().isEqualTo(aborted);
        assertThat(time.elapsed()).isEqualTo(millis(100)); // no timeout was left armed
    }

    @Test
    void aHugeTimeoutIsAcceptedAndNeverFiresEarly() {
        // A long interval keeps the observation windows few over the task's 100 days.
        ThrottledQueue q = builder(1, Duration.ofDays(1)).taskTimeout(Duration.ofDays(365L * 1_000_000_000)).build();
        CompletableFuture<Object> r = q.submit(task(Duration.ofDays(100)));
        time.runUntilIdle();
        assertThat(r).isCompletedWithValue("ok");
    }

    private void rejects(UnaryOperator<ThrottledQueueBuilder> options, String value) {
        ThrottledQueueBuilder b = options.apply(ThrottledQueue.builder().minRate(5).interval(SECOND).time(time));
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("taskTimeout").hasMessageEndingWith(value);
    }

    @Test
    void aTimeoutThatIsNotPositiveFailsAtBuildTimeAndNullMeansNone() {
        rejects(b -> b.taskTimeout(Duration.ZERO), "PT0S");
        rejects(b -> b.taskTimeout(Duration.ofMillis(-1)), "PT-0.001S");
        ThrottledQueue none = ThrottledQueue.builder().minRate(5).interval(SECOND).time(time)
                .taskTimeout(TIMEOUT).taskTimeout(null).build();
        CompletableFuture<Object> r = none.submit(task(Duration.ZERO, HANG));
        time.advance(Duration.ofDays(1));
        assertThat(r).isNotDone();
        assertThat(none.state().active()).isEqualTo(1);
    }
}
